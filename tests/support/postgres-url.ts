/**
 * The PostgreSQL database that every test, reliability script and benchmark works in, each in throwaway schemas of
 * its own: TEST_DATABASE_URL, by default the local server's `test` database.
 */
export function testPostgresUrl(): string {
  return process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
}
