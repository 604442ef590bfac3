/**
 * Operations of operations.md not built yet, by the issue that builds them. The contract test fails when one
 * of these is in fact built (remove it here) or when an operation is neither built nor listed.
 */
export const NOT_YET_BUILT: readonly string[] = [
  // Risk
  'POST /v1/admin/antifraud-plans',
  'GET /v1/admin/antifraud-plans',
  'GET /v1/admin/antifraud-plans/{id}',
  'PATCH /v1/admin/antifraud-plans/{id}',
  'POST /v1/admin/antifraud-plans/{id}/enable',
  'POST /v1/admin/antifraud-plans/{id}/disable',
  'DELETE /v1/admin/antifraud-plans/{id}',
  'POST /v1/admin/scoring-rules',
  'GET /v1/admin/scoring-rules',
  'GET /v1/admin/scoring-rules/{id}',
  'PATCH /v1/admin/scoring-rules/{id}',
  'DELETE /v1/admin/scoring-rules/{id}',
  'GET /v1/admin/risk-configuration',
  'PUT /v1/admin/risk-configuration',
  'DELETE /v1/admin/risk-configuration',
  'POST /v1/admin/list-groups',
  'GET /v1/admin/list-groups',
  'GET /v1/admin/list-groups/{id}',
  'PATCH /v1/admin/list-groups/{id}',
  'DELETE /v1/admin/list-groups/{id}',
  'POST /v1/admin/list-groups/{id}/entries',
  'GET /v1/admin/list-groups/{id}/entries',
  'DELETE /v1/admin/list-groups/{id}/entries/{entryId}',
];
