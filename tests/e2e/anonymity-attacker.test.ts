/**
 * The attacker test: four people post interleaved company and manager reviews over HTTP, one adds a company, one adds
 * a manager, two come back after a day (their sessions refresh) right before a review, one deletes their account.
 * The queue is published (`scripts/publish.ts`, when it exists). Then the test becomes T2 of docs/anonymity.md: it
 * holds the raw database (SQLite file and WAL, copied while the server runs and again after it stopped; PostgreSQL's
 * `xmin`, `ctid` and the pg_waldump output of the run), AUTH_SECRET, the server's log and the queue-key directory,
 * and tries every linkage it knows. Each attack gives every published review a set of candidate authors; every set,
 * and their intersection, must keep at least K accounts, and no submit time may be finer than the publication batch.
 *
 * Against the design before the publication queue (each review written at once, in one transaction with its receipt)
 * it fails on both engines. Measured with 4 accounts, 20 reviews (10 of managers), 1 deleted account:
 *   SQLite     a. receipts: 312 HMACs, the deleted account's id carved from the WAL: 2/20 reviews narrowed to 2
 *              b. WAL transaction grouping: 10/10 manager reviews narrowed to 1 (their author)
 *              c. session refresh in the WAL transaction before: 2/2 first reviews of a returning visit narrowed to 1
 *              together: 12/20 reviews below 3 candidates
 *              d. 20/20 reviews written at submission; WAL order 190/190 pairs, cell order 94–100% (z 3.3–4.2)
 *              e. e-mail, user id and password hash of the deleted account in the WAL and in the file after shutdown
 *              f. X-Cache turned to miss right after a submission
 *   PostgreSQL a. receipts: 234 HMACs, 8/10 matched (the deleted account's 2 unmatched): no review narrowed
 *              b. shared xmin (and pg_waldump grouping): 10/10 manager reviews narrowed to 1
 *              c. session row's xmin right before the review's: 2/2 narrowed to 1; together 12/20 below 3
 *              d. xmin order 190/190 pairs, ctid order 90/90, pg_waldump COMMIT: 20/20 written before publication
 *              f. as on SQLite. (e is not run on PostgreSQL: the raw bytes are scanned on SQLite.)
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { before, describe, it } from "node:test";
import { promisify } from "node:util";
import SQLite from "better-sqlite3";
import pg from "pg";
import { legacyManagerReviewReceipt } from "#app/domain/contributions.server.ts";
import {
  adminQuery,
  cleanUp,
  createDatabase,
  type Engine,
  freePort,
  newClientIp,
  newMarker,
  newSecret,
  password,
  root,
  type ServerProcess,
  sleep,
  spawnServer,
  type TestDatabase,
  waitForHealth,
} from "../../scripts/reliability/support.ts";
import {
  companyDraft,
  companyEntries,
  companyReviewEntries,
  managerDraft,
  managerEntries,
  managerReviewEntries,
  postEntries,
} from "./support/contribute.ts";
import { newEmail, Visitor } from "./support/http.ts";
import {
  cellPositions,
  changedRecords,
  concordance,
  lsnValue,
  occurrences,
  pgWalDump,
  walDump,
  walTransactions,
  writtenBy,
} from "../support/forensics.ts";

/** Candidate authors every published review must keep. */
const K = 3;
/**
 * A recovered order whose agreement with the submission order scores this far above chance (Kendall's z; about 2 in
 * 10,000 shuffled batches reach it) is kept by storage, not luck.
 */
const orderLeakZ = 3.5;
const labels = ["alice", "bob", "carol", "dave"] as const;
type Label = (typeof labels)[number];
const returning: Label[] = ["alice", "carol"];
const deleted: Label = "dave";

type Person = { label: Label; email: string; visitor: Visitor; userId: string; passwordHash: string };
type Submission = { marker: string; author: Label; kind: "company" | "manager"; subject: number; seq: number };
/** A published review of this run, with what the engine shows of its storage. */
type Published = Submission & { id: string; createdOn: string; xmin?: number; ctid?: number[] };
type Candidates = Map<string, Set<Label>>;
/** What one attack found: candidate authors per published review (by marker), and findings in words. */
type Attack = { name: string; candidates?: Candidates; findings: string[]; figures?: string[]; notRun?: string };

type Evidence = {
  engine: Engine;
  secret: string;
  people: Person[];
  submissions: Submission[];
  published: Published[];
  log: string;
  keyFiles: string[];
  publisherRan: boolean;
  cacheAfterSubmission: string | null;
  users: Array<{ id: string }>;
  managers: number[];
  receipts: Array<{ receipt: string; xmin?: number; ctid?: string }>;
  sessions: Array<{ id: string; userId: string; xmin?: number }>;
  // SQLite: raw bytes seized from the running server, and after it stopped.
  live?: { file: Buffer; wal: Buffer };
  stopped?: { file: Buffer; wal: Buffer };
  /** SQLite: WAL length and first salt when publication began; PostgreSQL: its LSN. */
  publishMark?: { walLength: number; salt: number } | bigint;
  // PostgreSQL
  xmins?: Array<{ table: string; xmin: number; userId?: string }>;
  relfilenodes?: Map<number, string>;
  walDumpResult?: Awaited<ReturnType<typeof walDump>> | string;
};

const text = (marker: string) => `${marker} clear goals, fair reviews and a team that helps each other out.`;
const markerOf = (reviewText: string) => reviewText.slice(0, 43);
const everyone = () => new Set<Label>(labels);
const describeSet = (set: Set<Label>) => `${set.size} (${[...set].join(", ")})`;

async function query<T>(database: TestDatabase, statement: string, values: unknown[] = []): Promise<T[]> {
  if (database.engine === "sqlite") {
    const sqlite = new SQLite(database.url, { fileMustExist: true });
    try {
      sqlite.pragma("busy_timeout = 5000");
      const prepared = sqlite.prepare(statement);
      return (prepared.reader ? prepared.all(...values) : (prepared.run(...values), [])) as T[];
    } finally {
      sqlite.close();
    }
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const numbered = statement.replace(
      /\?/g,
      (() => {
        let n = 0;
        return () => `$${++n}`;
      })(),
    );
    return (await client.query(numbered, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Plays the run as four people would, publishes, seizes the server and hands over everything T2 holds. */
async function seize(engine: Engine): Promise<Evidence> {
  const database = await createDatabase(engine, "attacker");
  const secret = newSecret();
  const keyDir = path.join(database.dir, "queue-keys");
  const env = {
    DEMO_DATA: "always",
    LOG_LEVEL: "info",
    AUTH_SECRET: secret,
    // The defaults a real site runs with (the harness otherwise publishes each review at once).
    PUBLISH_INTERVAL: "86400",
    MANAGER_MIN_REVIEWS: "3",
    PUBLISH_MIN_AUTHORS: "3",
    QUEUE_KEY_DIR: keyDir,
  };
  const port = await freePort();
  const baseURL = `http://127.0.0.1:${port}`;
  let server: ServerProcess | undefined;
  try {
    server = spawnServer(database, port, env);
    await waitForHealth(baseURL, server);
    let lsnStart = "";
    if (engine === "sqlite") {
      // Start from an empty WAL, as a server that has run for a while would after a checkpoint. The server's
      // checkpoint thread may hold the checkpoint at that moment: then this one reports busy and is tried again.
      const deadline = Date.now() + 60_000;
      for (;;) {
        const [result] = await query<{ busy: number }>(database, "pragma wal_checkpoint(TRUNCATE)");
        if (result?.busy === 0) break;
        assert.ok(Date.now() < deadline, "the WAL could be checkpointed before the run");
        await sleep(10);
      }
    } else {
      lsnStart = (await adminQuery<{ lsn: string }>("select pg_current_wal_lsn()::text as lsn")).rows[0]!.lsn;
    }

    const [company] = await query<{ company_id: number; first: number; second: number }>(
      database,
      `select company_id, min(manager_id) as first, max(manager_id) as second from manager_companies
       group by company_id having count(*) >= 2 order by company_id limit 1`,
    );
    assert.ok(company, "demo data has a company with two managers");
    const [other] = await query<{ id: number }>(
      database,
      "select id from companies where id <> ? order by id limit 1",
      [company.company_id],
    );
    const [X, Y, M1, M2] = [company.company_id, other!.id, company.first, company.second];

    const people: Person[] = [];
    for (const label of labels) {
      const email = newEmail(label);
      const visitor = new Visitor(baseURL, newClientIp());
      await visitor.signUp(email, password);
      const [user] = await query<{ id: string; password: string }>(
        database,
        `select u.id, a.password from users u join accounts a on a."userId" = u.id where u.email = ?`,
        [email],
      );
      people.push({ label, email, visitor, userId: user!.id, passwordHash: user!.password });
    }
    const person = (label: Label) => people.find((p) => p.label === label)!;

    // Returning users: their sessions are a day older than a refresh allows (better-auth's updateAge).
    for (const label of returning) {
      const [session] = await query<{ expiresAt: unknown }>(
        database,
        `select "expiresAt" from sessions where "userId" = ?`,
        [person(label).userId],
      );
      const aged = Date.now() + 28 * 24 * 60 * 60 * 1000;
      const value =
        engine === "postgres"
          ? new Date(aged)
          : typeof session!.expiresAt === "number"
            ? aged
            : new Date(aged).toISOString();
      await query(database, `update sessions set "expiresAt" = ? where "userId" = ?`, [value, person(label).userId]);
    }

    const submissions: Submission[] = [];
    const submit = async (
      label: Label,
      kind: Submission["kind"],
      subject: number,
      to: string,
      entries: Array<[string, string]>,
    ) => {
      const response = await postEntries(person(label).visitor, to, entries);
      await response.body?.cancel();
      assert.equal(
        response.status,
        302,
        `${label} posting to ${to} answered ${response.status}; the server's last words:\n${server?.log().slice(-1500)}`,
      );
      const location = response.headers.get("location") ?? "";
      // A new subject's id is known only when the answer goes to its own page (published at once); a queued one's
      // answer goes elsewhere (a new manager's company page), whose id is not the subject's.
      const ownPage = kind === "company" ? /\/company\/(\d+)/ : /\/manager-profile\/(\d+)/;
      const created = Number(ownPage.exec(location)?.[1]);
      submissions.push({
        marker: entries.find(([key]) => key === "review_text")![1].slice(0, 43),
        author: label,
        kind,
        subject: subject || created,
        seq: submissions.length,
      });
      return created;
    };
    const companyReview = (label: Label, id: number) =>
      submit(
        label,
        "company",
        id,
        `/company/review?company=${id}`,
        companyReviewEntries({ tags: ["Stable"], text: text(newMarker()) }),
      );
    const managerReview = (label: Label, id: number) =>
      submit(
        label,
        "manager",
        id,
        `/manager-review?manager=${id}`,
        managerReviewEntries({ tags: ["Supportive"], text: text(newMarker()) }),
      );
    const revisit = async (label: Label) => {
      const response = await person(label).visitor.get(`/company/${X}`);
      await response.body?.cancel();
      assert.equal(response.status, 200);
    };

    await revisit("alice");
    await submit("alice", "company", 0, "/company/add", [
      ...companyEntries(companyDraft("Attacked")),
      ...companyReviewEntries({ tags: ["Stable"], text: text(newMarker()) }),
    ]);
    // A new manager with one review: too few to publish (MANAGER_MIN_REVIEWS), so it stays held.
    await submit("bob", "manager", 0, `/manager/add?company=${Y}`, [
      ...managerEntries(managerDraft("Morgan")),
      ...managerReviewEntries({ tags: ["Supportive"], text: text(newMarker()) }),
    ]);
    const plan: Array<(label: Label) => Promise<number>> = [
      (label) => companyReview(label, X),
      (label) => managerReview(label, M1),
      (label) => companyReview(label, Y),
      (label) => managerReview(label, M2),
    ];
    let cacheAfterSubmission: string | null = null;
    for (let step = 0; step < plan.length; step += 1) {
      for (const [index, label] of labels.entries()) {
        if (step === 0 && label === "carol") await revisit("carol");
        await plan[(index + step) % plan.length]!(label);
      }
      if (step === 1) cacheAfterSubmission = await cacheOracle(baseURL, `/company/${Y}`, () => companyReview("bob", Y));
    }

    const dave = person(deleted);
    const gone = await postEntries(dave.visitor, "/account", [
      ["intent", "delete-account"],
      ["password", password],
      ["confirm", "yes"],
    ]);
    await gone.body?.cancel();
    assert.equal(gone.status, 302, "dave's account is deleted");

    // Publication, as the operator's schedule would run it.
    const publisher = path.join(root, "scripts", "publish.ts");
    const publisherRan = fs.existsSync(publisher);
    let publishMark: Evidence["publishMark"];
    if (engine === "sqlite") {
      const wal = fs.existsSync(`${database.url}-wal`) ? fs.readFileSync(`${database.url}-wal`) : Buffer.alloc(0);
      publishMark = { walLength: wal.length, salt: wal.length >= 32 ? wal.readUInt32BE(16) : -1 };
    } else
      publishMark = lsnValue(
        (await adminQuery<{ lsn: string }>("select pg_current_wal_lsn()::text as lsn")).rows[0]!.lsn,
      );
    let log = "";
    if (publisherRan) {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [publisher], {
        cwd: root,
        env: {
          PATH: process.env.PATH,
          NODE_ENV: "production",
          DATABASE_URL: database.url,
          OUTBOX_DIR: path.join(database.dir, "outbox"),
          ...env,
        },
      });
      log += stdout + stderr;
    }

    // T2 seizes the running server: the database file and its WAL as they are on disk now.
    const evidence: Evidence = {
      engine,
      secret,
      people,
      submissions,
      published: [],
      log: "",
      keyFiles: [],
      publisherRan,
      cacheAfterSubmission,
      users: [],
      managers: [],
      receipts: [],
      sessions: [],
      publishMark,
    };
    const read = (file: string) => fs.readFileSync(file, { flag: "r" });
    const readIfThere = (file: string) => (fs.existsSync(file) ? read(file) : Buffer.alloc(0));
    if (engine === "sqlite") evidence.live = { wal: readIfThere(`${database.url}-wal`), file: read(database.url) };
    let lsnEnd = "";
    if (engine === "postgres") {
      lsnEnd = (await adminQuery<{ lsn: string }>("select pg_current_wal_lsn()::text as lsn")).rows[0]!.lsn;
      evidence.relfilenodes = new Map(
        (
          await adminQuery<{ relname: string; node: number }>(
            `select relname, pg_relation_filenode(c.oid)::int as node from pg_class c
             where relnamespace = $1::regnamespace and relkind = 'r'`,
            [database.schema],
          )
        ).rows.map((row) => [row.node, row.relname]),
      );
      const tables = await query<{ table_name: string }>(
        database,
        "select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'",
      );
      evidence.xmins = [];
      for (const { table_name: table } of tables) {
        const userColumn = table === "sessions" ? `, "userId" as "userId"` : "";
        const rows = await query<{ xmin: string; userId?: string }>(
          database,
          `select xmin::text as xmin${userColumn} from "${table}"`,
        );
        for (const row of rows) evidence.xmins.push({ table, xmin: Number(row.xmin), userId: row.userId });
      }
    }
    // Then stops it, as a seizure or a shutdown would, and takes what is left on disk.
    server.child.kill("SIGTERM");
    assert.equal(await server.exited, 0, `the server stopped cleanly:\n${server.log().slice(-2000)}`);
    evidence.log = server.log() + log;
    if (engine === "sqlite") evidence.stopped = { wal: readIfThere(`${database.url}-wal`), file: read(database.url) };
    evidence.keyFiles = fs.existsSync(keyDir) ? fs.readdirSync(keyDir) : [];

    const storage = engine === "postgres" ? ", xmin::text as xmin, ctid::text as ctid" : "";
    for (const [table, key] of [
      ["company_reviews", "company_id"],
      ["manager_reviews", "manager_id"],
    ] as const) {
      const rows = await query<{ id: string; review_text: string; created_on: string; xmin?: string; ctid?: string }>(
        database,
        `select id, review_text, created_on, ${key} as subject${storage} from ${table} where review_text like 'crashmarker%'`,
      );
      for (const row of rows) {
        const submission = submissions.find((s) => s.marker === markerOf(row.review_text));
        if (!submission) continue;
        evidence.published.push({
          ...submission,
          id: row.id,
          createdOn: row.created_on,
          xmin: row.xmin === undefined ? undefined : Number(row.xmin),
          ctid: row.ctid?.replace(/[()]/g, "").split(",").map(Number),
        });
      }
    }
    evidence.users = await query(database, "select id from users");
    evidence.managers = (await query<{ id: number }>(database, "select id from managers")).map((row) => row.id);
    evidence.receipts = (
      await query<{ receipt: string; xmin?: string; ctid?: string }>(
        database,
        `select receipt${storage} from review_receipts`,
      )
    ).map((row) => ({ ...row, xmin: row.xmin === undefined ? undefined : Number(row.xmin) }));
    evidence.sessions = await query(database, `select id, "userId" as "userId" from sessions`);

    if (engine === "postgres") {
      const dataDir = (await adminQuery<{ dir: string }>("select current_setting('data_directory') as dir")).rows[0]!
        .dir;
      const walDir = path.join(dataDir, "pg_wal");
      try {
        fs.accessSync(pgWalDump, fs.constants.X_OK);
        fs.accessSync(walDir, fs.constants.R_OK);
        evidence.walDumpResult = await walDump(walDir, lsnStart, lsnEnd);
      } catch (error) {
        evidence.walDumpResult = `pg_waldump over ${walDir} could not run: ${(error as Error).message.split("\n")[0]}`;
      }
    }
    return evidence;
  } finally {
    await cleanUp(server, database);
  }
}

/**
 * The page-cache timing oracle: a visitor without a cookie polls a kept page, someone submits, and the visitor looks
 * again. Resolves with the X-Cache of the look after the submission.
 */
async function cacheOracle(baseURL: string, page: string, submitOne: () => Promise<unknown>): Promise<string | null> {
  const look = async () => {
    const response = await fetch(`${baseURL}${page}`, { headers: { "X-Forwarded-For": newClientIp() } });
    await response.text(); // read to the end: a cancelled response is never kept
    return response.headers.get("x-cache");
  };
  let kept = false;
  for (let attempt = 0; attempt < 5 && !kept; attempt += 1) kept = (await look()) === "hit";
  assert.ok(kept, `${page} is kept by the page cache before the submission`);
  await submitOne();
  return look();
}

/* ------------------------------------------------------------------------------------------------- the attacks */

/** Every raw byte T2 holds of an SQLite database: the files seized from the running server and after it stopped. */
function rawBytes(evidence: Evidence): Record<string, Buffer> {
  if (evidence.engine !== "sqlite") return {};
  return {
    "live database file": evidence.live!.file,
    "live WAL": evidence.live!.wal,
    "database file after shutdown": evidence.stopped!.file,
    "WAL after shutdown": evidence.stopped!.wal,
  };
}

/**
 * Who a receipt belongs to: an HMAC computed for every account × every manager. The accounts are those listed in
 * `users`, plus a deleted account whose id can still be carved out of the raw bytes.
 */
function receiptOwners(evidence: Evidence) {
  const labelOf = new Map(evidence.people.map((p) => [p.userId, p.label]));
  const gone = evidence.people.find((p) => p.label === deleted)!;
  const carved = Object.values(rawBytes(evidence)).some((bytes) => bytes.includes(Buffer.from(gone.userId)));
  const ids = [...evidence.users.map((user) => user.id), ...(carved ? [gone.userId] : [])];
  const stored = new Set(evidence.receipts.map((r) => r.receipt));
  const owners = new Map<string, { label: Label; manager: number }>();
  for (const id of ids) {
    for (const manager of evidence.managers) {
      const receipt = legacyManagerReviewReceipt({ userId: id, secret: evidence.secret }, manager);
      const label = labelOf.get(id);
      if (label && stored.has(receipt)) owners.set(receipt, { label, manager });
    }
  }
  const unmatched = evidence.receipts.filter((r) => !owners.has(r.receipt)).length;
  return { owners, computed: ids.length * evidence.managers.length, unmatched, carved };
}

/** Authors of a review of `manager` among some receipts: their owners, and a deleted account for any unmatched. */
function authorsAmong(evidence: Evidence, receipts: string[], manager: number): Set<Label> | undefined {
  const { owners } = receiptOwners(evidence);
  const found = new Set<Label>();
  for (const receipt of receipts) {
    const owner = owners.get(receipt);
    // A receipt nobody matched is made with an account key the copy does not hold (decision 0046), or is a deleted
    // account's: it may be anyone's.
    if (!owner) for (const label of [...evidence.people.map((p) => p.label), deleted]) found.add(label);
    else if (owner.manager === manager) found.add(owner.label);
  }
  return found.size > 0 ? found : undefined;
}

function intersect(candidates: Candidates, marker: string, set: Set<Label>) {
  const known = candidates.get(marker);
  candidates.set(marker, known ? new Set([...known].filter((label) => set.has(label))) : set);
}

function receiptsAttack(evidence: Evidence): Attack {
  const { owners, computed, unmatched, carved } = receiptOwners(evidence);
  const candidates: Candidates = new Map();
  for (const review of evidence.published) {
    if (review.kind === "company") continue;
    const reviewers = new Set([...owners.values()].filter((o) => o.manager === review.subject).map((o) => o.label));
    // A receipt nobody matched is made with an account key the copy does not hold (decision 0046), or is a deleted
    // account's: it may be anyone's review of this manager.
    if (unmatched > 0) for (const label of [...evidence.people.map((p) => p.label), deleted]) reviewers.add(label);
    candidates.set(review.marker, reviewers);
  }
  const matched = evidence.receipts.length - unmatched;
  const note = carved ? ", the deleted account's id carved from the raw bytes" : "";
  return {
    name: `receipt enumeration (${computed} HMACs, ${matched}/${evidence.receipts.length} receipts matched${note})`,
    candidates,
    findings: [],
  };
}

/** SQLite: which transaction of the WAL seized from the running server wrote each review, receipt and session. */
function sqliteWal(evidence: Evidence) {
  const { file, wal } = evidence.live!;
  const transactions = walTransactions(wal);
  const reviews = writtenBy(
    file,
    transactions,
    evidence.published.map((r) => r.id),
  );
  const receipts = writtenBy(
    file,
    transactions,
    evidence.receipts.map((r) => r.receipt),
  );
  const sessions = changedRecords(
    file,
    transactions,
    evidence.sessions.map((s) => s.id),
  );
  // A WAL begun anew (other salts) after publication started holds only what was written since.
  const mark = evidence.publishMark as { walLength: number; salt: number };
  const newGeneration = wal.length >= 32 && wal.readUInt32BE(16) !== mark.salt;
  const publishing = newGeneration
    ? 0
    : (transactions.find((t) => t.endOffset > mark.walLength)?.index ?? transactions.length);
  return { transactions, reviews, receipts, sessions, publishing };
}

/** PostgreSQL: the transaction pg_waldump shows inserting a review's (or receipt's) current tuple. */
function walDumpWriter(evidence: Evidence, table: string, ctid: string) {
  const dump = evidence.walDumpResult;
  if (typeof dump !== "object") return undefined;
  return [...dump.values()].findLast((t) =>
    t.inserts.some((i) => evidence.relfilenodes?.get(i.relfilenode) === table && i.ctid === ctid),
  );
}

const ctidText = (ctid: number[] | undefined) => `(${ctid?.join(",")})`;

function storagePairingAttack(evidence: Evidence): Attack {
  const candidates: Candidates = new Map();
  const findings: string[] = [];
  if (evidence.engine === "sqlite") {
    const wal = sqliteWal(evidence);
    for (const review of evidence.published) {
      const transaction = wal.reviews.get(review.id);
      if (transaction === undefined || review.kind === "company") continue;
      const together = [...wal.receipts].filter(([, t]) => t === transaction).map(([receipt]) => receipt);
      const authors = authorsAmong(evidence, together, review.subject);
      if (authors) intersect(candidates, review.marker, authors);
    }
    findings.push(
      `${wal.transactions.length} WAL transactions; ${wal.reviews.size} reviews and ${wal.receipts.size} receipts traced to the one that wrote them`,
    );
    return { name: "storage pairing (SQLite WAL transactions)", candidates, findings };
  }
  for (const review of evidence.published) {
    if (review.kind === "company") continue;
    const together = evidence.receipts.filter((r) => r.xmin === review.xmin).map((r) => r.receipt);
    const authors = authorsAmong(evidence, together, review.subject);
    if (authors) intersect(candidates, review.marker, authors);
  }
  const dump = evidence.walDumpResult;
  if (typeof dump === "object") {
    let traced = 0;
    for (const review of evidence.published) {
      if (review.kind === "company") continue;
      const writer = walDumpWriter(evidence, "manager_reviews", ctidText(review.ctid));
      if (!writer) continue;
      traced += 1;
      const ctids = new Set(
        writer.inserts
          .filter((i) => evidence.relfilenodes?.get(i.relfilenode) === "review_receipts")
          .map((i) => i.ctid),
      );
      const together = evidence.receipts.filter((r) => r.ctid && ctids.has(r.ctid)).map((r) => r.receipt);
      const authors = authorsAmong(evidence, together, review.subject);
      if (authors) intersect(candidates, review.marker, authors);
    }
    findings.push(`pg_waldump: ${dump.size} transactions read, ${traced} manager reviews traced to their writer`);
  } else findings.push(`${dump} (pg_waldump grouping not run)`);
  return { name: "storage pairing (PostgreSQL xmin, pg_waldump)", candidates, findings };
}

function sessionAdjacencyAttack(evidence: Evidence): Attack {
  const candidates: Candidates = new Map();
  const labelOf = new Map(evidence.people.map((p) => [p.userId, p.label]));
  const owner = (sessionId: string) =>
    labelOf.get(evidence.sessions.find((s) => s.id === sessionId)?.userId ?? "") ?? deleted;
  if (evidence.engine === "sqlite") {
    const wal = sqliteWal(evidence);
    const perTransaction = new Map<number, number>();
    for (const t of wal.reviews.values()) perTransaction.set(t, (perTransaction.get(t) ?? 0) + 1);
    for (const review of evidence.published) {
      const t = wal.reviews.get(review.id);
      // A transaction that wrote one review is one submission; the one before it may be its author's refresh.
      if (t === undefined || perTransaction.get(t) !== 1) continue;
      const refreshed = wal.sessions.get(t - 1);
      if (refreshed) candidates.set(review.marker, new Set([...refreshed].map(owner)));
    }
    return { name: "session-refresh adjacency (SQLite WAL)", candidates, findings: [] };
  }
  const xmins = [...new Set(evidence.xmins!.map((row) => row.xmin))].sort((a, b) => a - b);
  for (const review of evidence.published) {
    if (evidence.published.filter((r) => r.xmin === review.xmin).length !== 1) continue;
    const before = xmins[xmins.indexOf(review.xmin!) - 1];
    const refreshed = evidence.xmins!.filter((row) => row.xmin === before && row.table === "sessions");
    if (refreshed.length > 0)
      candidates.set(review.marker, new Set(refreshed.map((row) => labelOf.get(row.userId!) ?? deleted)));
  }
  return { name: "session-refresh adjacency (PostgreSQL xmin)", candidates, findings: [] };
}

/** Order and time: a submit time or order recoverable finer than the publication batch. */
function orderAndTimeAttack(evidence: Evidence): Attack {
  const findings: string[] = [];
  const figures: string[] = [];
  const reviews = evidence.published;
  const logged = evidence.log.split("\n").filter((line) => /"method":"POST".*"path":"\/(company|manager)/.test(line));
  const withLog = `; with it, the request log's ${logged.length} timed POST lines date each review to the millisecond`;
  const judge = (signal: string, groups: Published[][], recovered: (r: Published) => number[] | undefined) => {
    const { pairs, agreeing, z } = concordance(groups, (r) => r.seq, recovered);
    figures.push(`${signal}: ${agreeing}/${pairs} pairs in submission order, z = ${z.toFixed(1)}`);
    if (z >= orderLeakZ)
      findings.push(
        `${signal}: submission order kept by ${agreeing}/${pairs} pairs of reviews (z = ${z.toFixed(1)})${withLog}`,
      );
  };
  const early = (signal: string, isEarly: (r: Published) => boolean) => {
    const found = reviews.filter(isEarly);
    if (found.length > 0)
      findings.push(
        `${signal}: ${found.length}/${reviews.length} reviews written at their submission, before publication began (e.g. ${found[0]!.id})${withLog}`,
      );
  };
  if (evidence.engine === "sqlite") {
    const wal = sqliteWal(evidence);
    early("SQLite WAL", (r) => (wal.reviews.get(r.id) ?? Infinity) < wal.publishing);
    judge("SQLite WAL frame order", [reviews], (r) => (wal.reviews.has(r.id) ? [wal.reviews.get(r.id)!] : undefined));
    // In a page, SQLite fills cells from the end towards the start: a lower offset was written later.
    const positions = cellPositions(
      evidence.stopped!.file,
      reviews.map((r) => r.id),
    );
    const pages = new Map<number, Published[]>();
    for (const review of reviews) {
      const at = positions.get(review.id);
      if (at) pages.set(at.page, [...(pages.get(at.page) ?? []), review]);
    }
    judge("SQLite cell order in the checkpointed file", [...pages.values()], (r) =>
      positions.has(r.id) ? [-positions.get(r.id)!.offset] : undefined,
    );
  } else {
    judge("PostgreSQL xmin order", [reviews], (r) => [r.xmin!]);
    const byKind = (["company", "manager"] as const).map((kind) => reviews.filter((r) => r.kind === kind));
    judge("PostgreSQL ctid order", byKind, (r) => r.ctid);
    if (typeof evidence.walDumpResult === "object") {
      early("pg_waldump COMMIT records", (r) => {
        const lsn = walDumpWriter(evidence, `${r.kind}_reviews`, ctidText(r.ctid))?.commitLsn;
        return lsn !== undefined && lsn < (evidence.publishMark as bigint);
      });
      judge("pg_waldump commit times", [reviews], (r) => {
        const time = walDumpWriter(evidence, `${r.kind}_reviews`, ctidText(r.ctid))?.commitTime;
        return time
          ? [Date.parse(time.replace(" ", "T") + "Z") * 1000 + (Number(time.slice(20, 26) || 0) % 1000)]
          : undefined;
      });
    } else findings.push(`${evidence.walDumpResult} (commit records not read)`);
  }
  const days = new Set(reviews.map((r) => r.createdOn));
  if (days.size > 1) findings.push(`created_on: ${days.size} dates within one run (${[...days].join(", ")})`);
  return { name: "order and time", findings, figures };
}

function deletedAccountAttack(evidence: Evidence): Attack {
  if (evidence.engine !== "sqlite")
    return { name: "deleted account in raw bytes", findings: [], notRun: "raw bytes are scanned on SQLite only" };
  const gone = evidence.people.find((p) => p.label === deleted)!;
  const findings: string[] = [];
  for (const [where, bytes] of Object.entries(rawBytes(evidence))) {
    for (const [what, value] of [
      ["e-mail", gone.email],
      ["user id", gone.userId],
      ["password hash", gone.passwordHash],
    ] as const) {
      const found = occurrences(bytes, value);
      if (found.length > 0) findings.push(`${what} ×${found.length} in the ${where} (first at byte ${found[0]})`);
    }
  }
  return { name: "deleted account in raw bytes", findings };
}

/* --------------------------------------------------------------------------------------------------- the tests */

function narrowed(attack: Attack, evidence: Evidence): string[] {
  const problems: string[] = [];
  for (const review of evidence.published) {
    const set = attack.candidates?.get(review.marker);
    if (set && set.size < K) {
      const truth = set.has(review.author) ? "the author among them" : "not the author";
      problems.push(
        `${attack.name}: ${review.kind} review ${review.id} (by ${review.author}) narrowed to ${describeSet(set)}, ${truth}`,
      );
    }
  }
  return problems;
}

for (const engine of ["sqlite", "postgres"] as const) {
  describe(`the attacker who holds the ${engine} server`, () => {
    let evidence: Evidence;
    before(async () => {
      evidence = await seize(engine);
      console.log(
        `# ${engine}: ${evidence.submissions.length} submissions, ${evidence.published.length} published, publisher ${evidence.publisherRan ? "ran" : "absent"}, ${evidence.keyFiles.length} file(s) in the queue-key directory`,
      );
    });

    it("has published reviews to attack: every review of the managers with at least K reviews", () => {
      const groups = new Map<number, number>();
      for (const s of evidence.submissions.filter((s) => s.kind === "manager"))
        groups.set(s.subject, (groups.get(s.subject) ?? 0) + 1);
      const due = evidence.submissions.filter((s) => s.kind === "manager" && groups.get(s.subject)! >= K);
      const missing = due.filter((s) => !evidence.published.some((p) => p.marker === s.marker));
      assert.deepEqual(missing, [], "reviews of managers with K or more reviews are published");
    });

    for (const [label, run] of [
      ["a. receipt enumeration", receiptsAttack],
      ["b. storage pairing", storagePairingAttack],
      ["c. session-refresh adjacency", sessionAdjacencyAttack],
    ] as const) {
      it(`${label} leaves every published review at least ${K} candidate authors`, () => {
        const attack = run(evidence);
        for (const finding of attack.findings) console.log(`# ${engine} ${attack.name}: ${finding}`);
        const problems = narrowed(attack, evidence);
        console.log(
          `# ${engine} ${attack.name}: ${problems.length}/${evidence.published.length} reviews narrowed below ${K}`,
        );
        assert.deepEqual(problems, []);
      });
    }

    it(`all three together leave every published review at least ${K} candidate authors`, () => {
      const attacks = [receiptsAttack(evidence), storagePairingAttack(evidence), sessionAdjacencyAttack(evidence)];
      const problems: string[] = [];
      for (const review of evidence.published) {
        const set = attacks.reduce((left, attack) => {
          const found = attack.candidates?.get(review.marker);
          return found ? new Set([...left].filter((label) => found.has(label))) : left;
        }, everyone());
        if (set.size < K)
          problems.push(
            `intersection: ${review.kind} review ${review.id} (by ${review.author}) narrowed to ${describeSet(set)}`,
          );
      }
      console.log(
        `# ${engine} intersection: ${problems.length}/${evidence.published.length} reviews narrowed below ${K}`,
      );
      assert.deepEqual(problems, []);
    });

    it("d. recovers no submit time or order finer than the publication batch", () => {
      const attack = orderAndTimeAttack(evidence);
      for (const figure of attack.figures ?? []) console.log(`# ${engine} order and time (measured): ${figure}`);
      for (const finding of attack.findings) console.log(`# ${engine} order and time: ${finding}`);
      assert.deepEqual(attack.findings, []);
    });

    it("e. finds no e-mail, id or password hash of the deleted account in the raw database bytes", (t) => {
      const attack = deletedAccountAttack(evidence);
      if (attack.notRun) return t.skip(attack.notRun);
      for (const finding of attack.findings) console.log(`# ${engine} deleted account: ${finding}`);
      assert.deepEqual(attack.findings, []);
    });

    it("f. sees no page-cache miss caused by a submission", () => {
      assert.equal(evidence.cacheAfterSubmission, "hit", "page cache: X-Cache turned to miss right after a submission");
    });
  });
}
