//! f32 ↔ bf16 (the upper 16 bits of an f32), as torch converts: round to nearest, ties to
//! even; NaN stays NaN.

/// `value` rounded to the nearest bf16 (ties to even), as its 16 bits.
#[inline]
pub fn f32_to_bf16(value: f32) -> u16 {
    let bits = value.to_bits();
    if value.is_nan() {
        // Keep it a NaN whatever its payload: set the quiet bit.
        return ((bits >> 16) | 0x40) as u16;
    }
    let round = 0x7fff + ((bits >> 16) & 1);
    (bits.wrapping_add(round) >> 16) as u16
}

/// The f32 of bf16 bits (exact: every bf16 is an f32).
#[inline]
pub fn bf16_to_f32(bits: u16) -> f32 {
    f32::from_bits(u32::from(bits) << 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_to_nearest_even() {
        // 1 + 2^-8 lies halfway between bf16's 1 and 1 + 2^-7: ties go to the even 1.
        assert_eq!(bf16_to_f32(f32_to_bf16(1.0 + 2f32.powi(-8))), 1.0);
        // 1 + 3·2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: even is 1 + 2^-6.
        assert_eq!(
            bf16_to_f32(f32_to_bf16(1.0 + 3.0 * 2f32.powi(-8))),
            1.0 + 2f32.powi(-6)
        );
        // Just above halfway rounds up.
        assert_eq!(
            bf16_to_f32(f32_to_bf16(1.0 + 2f32.powi(-8) + 2f32.powi(-20))),
            1.0 + 2f32.powi(-7)
        );
        assert_eq!(bf16_to_f32(f32_to_bf16(-3.0)), -3.0);
        assert!(bf16_to_f32(f32_to_bf16(f32::NAN)).is_nan());
        assert_eq!(bf16_to_f32(f32_to_bf16(f32::INFINITY)), f32::INFINITY);
        // The largest f32 rounds past bf16's largest finite value, to infinity, as in torch.
        assert_eq!(bf16_to_f32(f32_to_bf16(f32::MAX)), f32::INFINITY);
    }
}
