/**
 * Operations of operations.md not built yet, by the issue that builds them. The contract test fails when one
 * of these is in fact built (remove it here) or when an operation is neither built nor listed.
 */
export const NOT_YET_BUILT: readonly string[] = [];
