// A PostgreSQL cluster of a test's own, for tests that read its raw files (heap, index and pg_wal) or restart it:
// the shared test server is never touched. Needs PostgreSQL's binaries (pgBinaries); started as the `postgres`
// user when the tests run as root (initdb refuses root).
import { execFile } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);

export const pgBinaries = "/usr/lib/postgresql/15/bin";

export type PrivatePostgres = {
  /** postgres://postgres@127.0.0.1:PORT/postgres, a superuser. */
  url: string;
  dataDir: string;
  restart: () => Promise<void>;
  stop: () => Promise<void>;
  /** Every file under the data directory, with its path relative to it ("./base/5/16384", "./pg_wal/…"). */
  files: () => Promise<Array<{ path: string; bytes: Buffer }>>;
};

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts a fresh cluster with `settings` (postgresql.conf names and values). */
export async function startPrivatePostgres(settings: Record<string, string>): Promise<PrivatePostgres> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "candor-private-pg-"));
  const dataDir = path.join(root, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) fs.chmodSync(root, 0o777);
  const as = (binary: string, args: string[]) =>
    asRoot
      ? run("runuser", ["-u", "postgres", "--", path.join(pgBinaries, binary), ...args])
      : run(path.join(pgBinaries, binary), args);
  await as("initdb", ["-D", dataDir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"]);
  const port = await freePort();
  const conf = {
    port: String(port),
    listen_addresses: "'127.0.0.1'",
    unix_socket_directories: `'${root}'`,
    fsync: "off",
    ...settings,
  };
  fs.appendFileSync(
    path.join(dataDir, "postgresql.conf"),
    Object.entries(conf)
      .map(([name, value]) => `${name} = ${value}\n`)
      .join(""),
  );
  const log = path.join(root, "server.log");
  const start = () => as("pg_ctl", ["-D", dataDir, "-l", log, "-w", "start"]);
  const stopServer = () => as("pg_ctl", ["-D", dataDir, "-m", "fast", "-w", "stop"]);
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    dataDir,
    restart: async () => {
      await stopServer();
      await start();
    },
    stop: async () => {
      await stopServer().catch(() => undefined);
      fs.rmSync(root, { recursive: true, force: true });
    },
    files: async () => {
      // As root (the tests' usual case) the files are read straight from the disk; otherwise through the server.
      if (asRoot) {
        return fs
          .readdirSync(dataDir, { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isFile())
          .map((entry) => {
            const full = path.join(entry.parentPath, entry.name);
            return { path: `./${path.relative(dataDir, full)}`, bytes: fs.readFileSync(full) };
          });
      }
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const found: Array<{ path: string; bytes: Buffer }> = [];
        const walk = async (directory: string) => {
          const { rows } = await client.query<{ name: string; isdir: boolean }>(
            "select name, (pg_stat_file($1 || '/' || name, true)).isdir as isdir from pg_ls_dir($1, true, false) as name",
            [directory],
          );
          for (const row of rows) {
            const child = `${directory}/${row.name}`;
            if (row.isdir) await walk(child);
            else if (row.isdir === false) {
              const read = await client.query<{ bytes: Buffer | null }>(
                "select pg_read_binary_file($1, 0, (pg_stat_file($1, true)).size, true) as bytes",
                [child],
              );
              if (read.rows[0]?.bytes) found.push({ path: child, bytes: read.rows[0].bytes });
            }
          }
        };
        await walk(".");
        return found;
      } finally {
        await client.end();
      }
    },
  };
}

/** The files (by path) that hold `needle`, as UTF-8 bytes. */
export function filesHolding(files: Array<{ path: string; bytes: Buffer }>, needle: string): string[] {
  const encoded = Buffer.from(needle);
  return files.filter((file) => file.bytes.includes(encoded)).map((file) => file.path);
}
