//! Matrix products through the `gemm` crate, operands read through strides (a
//! transposed operand or one head's columns are never copied) and the output
//! written directly (never zero-filled first).

/// How an operand is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// As the product reads it: `[rows, cols]` row-major.
    Plain,
    /// Transposed: the product reads `[rows, cols]`, the slice holds `[cols, rows]`.
    Transposed,
}

/// `c = a · b`, or `c += a · b` with `accumulate`: `a` is read as `[m, k]`, `b` as
/// `[k, n]` (each stored as [`Op`] says), `c` is `[m, n]`, all row-major. Products of
/// more than a few thousand multiply-adds are split across rayon's threads.
pub fn matmul(
    c: &mut [f32],
    a: &[f32],
    a_op: Op,
    b: &[f32],
    b_op: Op,
    [m, k, n]: [usize; 3],
    accumulate: bool,
) {
    let view = |data, op, rows, cols| match op {
        Op::Plain => Mat::new(data, 0, [rows, cols], [cols, 1]),
        Op::Transposed => Mat::new(data, 0, [rows, cols], [1, rows]),
    };
    let parallel = m * n * k >= 1 << 16;
    product(
        MatMut::new(c, 0, [m, n], n),
        view(a, a_op, m, k),
        view(b, b_op, k, n),
        1.0,
        accumulate,
        parallel,
    );
}

/// A matrix read from a slice through strides: element (i, j) at
/// `offset + i·strides[0] + j·strides[1]`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mat<'a> {
    data: &'a [f32],
    offset: usize,
    shape: [usize; 2],
    strides: [usize; 2],
}

impl<'a> Mat<'a> {
    /// Panics if an element would fall outside `data`.
    pub(crate) fn new(
        data: &'a [f32],
        offset: usize,
        shape: [usize; 2],
        strides: [usize; 2],
    ) -> Self {
        assert!(
            fits(data.len(), offset, shape, strides),
            "a matrix view past its slice"
        );
        Self {
            data,
            offset,
            shape,
            strides,
        }
    }
}

/// A matrix written through a row stride (columns contiguous).
#[derive(Debug)]
pub(crate) struct MatMut<'a> {
    data: &'a mut [f32],
    offset: usize,
    shape: [usize; 2],
    row_stride: usize,
}

impl<'a> MatMut<'a> {
    /// Panics if an element would fall outside `data`.
    pub(crate) fn new(
        data: &'a mut [f32],
        offset: usize,
        shape: [usize; 2],
        row_stride: usize,
    ) -> Self {
        assert!(
            fits(data.len(), offset, shape, [row_stride, 1]),
            "a matrix view past its slice"
        );
        Self {
            data,
            offset,
            shape,
            row_stride,
        }
    }
}

fn fits(len: usize, offset: usize, [rows, cols]: [usize; 2], [rs, cs]: [usize; 2]) -> bool {
    rows == 0 || cols == 0 || offset + (rows - 1) * rs + (cols - 1) * cs < len
}

/// `c = scale · a · b`, or `c += scale · a · b` with `accumulate`.
pub(crate) fn product(
    c: MatMut<'_>,
    a: Mat<'_>,
    b: Mat<'_>,
    scale: f32,
    accumulate: bool,
    parallel: bool,
) {
    let ([m, k], [k2, n]) = (a.shape, b.shape);
    assert!(k == k2 && c.shape == [m, n], "matrix shapes");
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !accumulate {
            for i in 0..m {
                c.data[c.offset + i * c.row_stride..][..n].fill(0.0);
            }
        }
        return;
    }
    let parallelism = if parallel {
        gemm::Parallelism::Rayon(0)
    } else {
        gemm::Parallelism::None
    };
    // SAFETY: `Mat::new` and `MatMut::new` checked that every element the strides reach
    // lies inside its slice; `c` is borrowed mutably, so it aliases neither operand.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.data.as_mut_ptr().add(c.offset),
            1,
            c.row_stride as isize,
            accumulate,
            a.data.as_ptr().add(a.offset),
            a.strides[1] as isize,
            a.strides[0] as isize,
            b.data.as_ptr().add(b.offset),
            b.strides[1] as isize,
            b.strides[0] as isize,
            1.0,
            scale,
            false,
            false,
            false,
            parallelism,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: &[f32], at: bool, b: &[f32], bt: bool, m: usize, k: usize, n: usize) -> Vec<f32> {
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                for p in 0..k {
                    let x = if at { a[p * m + i] } else { a[i * k + p] };
                    let y = if bt { b[j * k + p] } else { b[p * n + j] };
                    c[i * n + j] += x * y;
                }
            }
        }
        c
    }

    #[test]
    fn every_transposition_and_accumulation() {
        let (m, k, n) = (37, 53, 29);
        let a: Vec<f32> = (0..m * k).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
        let b: Vec<f32> = (0..k * n).map(|i| ((i * 5) % 11) as f32 - 5.0).collect();
        for (at, a_op) in [(false, Op::Plain), (true, Op::Transposed)] {
            for (bt, b_op) in [(false, Op::Plain), (true, Op::Transposed)] {
                let want = naive(&a, at, &b, bt, m, k, n);
                let mut c = vec![f32::NAN; m * n];
                matmul(&mut c, &a, a_op, &b, b_op, [m, k, n], false);
                assert_eq!(c, want, "{a_op:?} {b_op:?}");
                matmul(&mut c, &a, a_op, &b, b_op, [m, k, n], true);
                let twice: Vec<f32> = want.iter().map(|x| 2.0 * x).collect();
                assert_eq!(c, twice, "{a_op:?} {b_op:?}, accumulated");
            }
        }
    }
}
