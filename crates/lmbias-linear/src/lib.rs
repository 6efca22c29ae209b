//! A linear SVM that solves exactly the problem of scikit-learn's LinearSVC(dual=False) (liblinear's L2-regularised squared hinge loss).
