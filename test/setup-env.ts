process.env.NODE_ENV = 'test';
// Every HTTP answer in the tests is checked against its declared response schema.
process.env.PAYPLANE_VALIDATE_RESPONSES = '1';
process.env.PAYPLANE_LOG_LEVEL = process.env.PAYPLANE_LOG_LEVEL ?? 'silent';
