/** The two databases Payplane runs on. */
export type Dialect = 'sqlite' | 'postgres';
