/**
 * A schema of its own on the test PostgreSQL server for one describe block: created before its
 * tests, dropped with everything in it afterwards, so concurrent runs against one server never
 * collide. Call inside a `describe.skipIf(testDatabaseUrl === undefined)` block.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

export function useTemporarySchema(connectionString: string): string {
  const schema = `tailcam_test_${randomBytes(6).toString('hex')}`;
  let admin: pg.Client | undefined;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  });
  afterAll(async () => {
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });
  return schema;
}
