// PLACEHOLDER: replaced by the testing-kit work (issue 5).
export {};
