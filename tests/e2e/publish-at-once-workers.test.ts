// PUBLISH_INTERVAL=0 with two worker processes: each submission is published before it is answered, so both workers
// publish all the time, and one destroys the key file the other has just destroyed or swept. Every write must still
// be answered 2xx and published. The race itself (a key file unlinked by the other worker while this one overwrites
// it) is made certain in app/lib/queue-keys.server.test.ts, which fails without the fix; here its window is the
// fsync of one file, and on the test machine 160 writes did not hit it with the fix removed. This test keeps the
// promise end to end: any write answered otherwise than 2xx, or not published, fails it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ApiClient, companyReview } from "./support/api.ts";
import {
  cleanUp,
  createDatabase,
  freePort,
  readDatabase,
  type ServerProcess,
  spawnServer,
  type ThrowawayDatabase,
  waitForHealth,
} from "../support/server.ts";

const writes = 160;
const concurrency = 16;

describe("publishing at once with two workers", () => {
  let database: ThrowawayDatabase;
  let server: ServerProcess;
  let baseURL: string;

  before(async () => {
    database = await createDatabase("postgres", "at-once-workers");
    const port = await freePort();
    baseURL = `http://127.0.0.1:${port}`;
    server = spawnServer(database, port, { WEB_CONCURRENCY: "2", RATE_LIMITS: "off", DEMO_DATA: "always" });
    await waitForHealth(baseURL, server, 60_000);
  });

  after(async () => {
    await cleanUp(server, database);
  });

  it(`answers ${writes} concurrent reviews 2xx, each published`, async () => {
    const api = await ApiClient.connect(baseURL);
    const account = await api.newAccount(database.url, "postgres");
    const count = async () => Number((await readDatabase(database, "select count(*) as n from company_reviews"))[0]!.n);
    const before = await count();
    const statuses: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < writes) {
          const company = 1 + (next++ % 40);
          const answer = await api.post(`/api/v1/companies/${company}/reviews`, companyReview(), {
            token: account.accessToken,
          });
          statuses.push(answer.status);
        }
      }),
    );
    const failed = statuses.filter((status) => status >= 300);
    assert.deepEqual(failed, [], `${failed.length} of ${writes} writes failed:\n${server.log().slice(-3000)}`);
    assert.equal(await count(), before + writes);
  });
});
