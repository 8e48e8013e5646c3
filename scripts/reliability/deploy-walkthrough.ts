// docs/deploy.md followed from a fresh clone (its step 8, backups and upgrades). The commands are not copied here:
// every ```sh walkthrough=NAME block of the page is run as written, by bash, with these things moved into a
// temporary directory, so the page cannot drift from what works:
// - the paths /opt/candor (the clone), /etc/candor (the settings) and /backups;
// - PostgreSQL's 127.0.0.1:5432, which becomes a PostgreSQL of our own on a free port (trust authentication);
// - `sudo -u USER` runs the command as ourselves, and `-o`/`-g` owners of `install` become ours (no users are made);
// - `systemctl reload candor` runs the unit's ExecReload with the main process's id, as systemd would.
// What needs root and systemd is done here the unit files' way: `systemd-analyze verify` checks deploy/systemd/ (when
// installed), Candor runs as the ExecStart of deploy/systemd/candor.service with its EnvironmentFile, HAProxy as the
// ExecStart of Debian's haproxy.service with the drop-in's Environment= lines, nginx with deploy/nginx/candor.conf.
// Both proxies terminate TLS with a certificate made here by openssl, in front of the same two machines (one with two
// workers, one with one) and a third, dead, address. Then, through each proxy: HTTP redirects to HTTPS, HSTS, __Host-
// cookies over HTTPS, X-Forwarded-For believed from the proxy only; a machine with a QUEUE_KEY_DIR of its own refuses
// to start; backup while running, restore into a new database, equal row counts; a release with one more migration
// pushed, upgraded to with the page's commands, every worker replaced while no request through the proxy failed.
// It tests the last commit (`git clone`), not uncommitted changes. Needs git, openssl, nginx and haproxy (Debian's
// packages), PostgreSQL's binaries, and the npm registry for `npm ci`. Usage: node scripts/reliability/deploy-walkthrough.ts
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { rateLimits } from "#app/lib/rate-limit.server.ts";
import {
  companyReview,
  createOwnPostgres,
  freePort,
  newCompany,
  newMarker,
  password,
  printProblems,
  root,
  sleep,
} from "./support.ts";

const label = "deploy-walkthrough";
for (const [command, args, pkg] of [
  ["git", ["--version"], "git"],
  ["openssl", ["version"], "openssl"],
  ["nginx", ["-v"], "nginx"],
  ["haproxy", ["-v"], "haproxy"],
] as const) {
  const result = spawnSync(command, args, { encoding: "utf8" });
  if (result.error || result.status !== 0) {
    console.error(
      `${label}: ${command} is not installed. Install Debian's package (as root: apt-get install ${pkg}) and run again.`,
    );
    process.exit(1);
  }
}

const problems: string[] = [];
const started = Date.now();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "candor-walkthrough-"));
const paths = {
  "/opt/candor": path.join(tmp, "opt/candor"),
  "/etc/candor": path.join(tmp, "etc/candor"),
  "/backups": path.join(tmp, "backups"),
};
fs.mkdirSync(path.join(tmp, "opt"));
fs.mkdirSync(path.join(tmp, "etc"));
fs.mkdirSync(paths["/backups"]);
const clone = paths["/opt/candor"];
// nginx's own directory: readable by its workers, which do not run as us.
let nginxPrefix = "";
const logFile = path.join(tmp, "walkthrough.log");
const user = os.userInfo().username;
const group = execFileSync("id", ["-gn"], { encoding: "utf8" }).trim();
const children: Array<{ name: string; child: ReturnType<typeof spawn> }> = [];
process.once("exit", () => {
  for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

const log = (text: string) => fs.appendFileSync(logFile, text);
const step = (text: string) => console.log(`${label}: ${text} (${((Date.now() - started) / 1000).toFixed(0)} s)`);

// ---------------------------------------------------------------------------------------------------------------
// The page's blocks

const doc = execFileSync("git", ["show", "HEAD:docs/deploy.md"], { cwd: root, encoding: "utf8" });
const blocks = new Map<string, string>();
for (const match of doc.matchAll(/^( *)```sh walkthrough=([\w-]+)\n([\s\S]*?)^ *```$/gm)) {
  const indent = match[1]!.length;
  if (blocks.has(match[2]!)) problems.push(`docs/deploy.md has two blocks tagged walkthrough=${match[2]}`);
  blocks.set(match[2]!, match[3]!.replace(new RegExp(`^ {0,${indent}}`, "gm"), ""));
}
const expected = ["install", "settings", "backup", "restore", "upgrade"];
for (const name of blocks.keys()) if (!expected.includes(name)) problems.push(`unknown walkthrough block ${name}`);
for (const name of expected) if (!blocks.has(name)) problems.push(`docs/deploy.md has no walkthrough=${name} block`);
if (problems.length > 0) finish();

/** Moves the page's paths and addresses into the test's (see the top of this file). */
function relocate(text: string, postgresPort: number): string {
  let result = text;
  for (const [from, to] of Object.entries(paths)) result = result.replaceAll(from, to);
  return result
    .replaceAll("127.0.0.1:5432", `127.0.0.1:${postgresPort}`)
    .replace(/(^|\s)-o (root|candor)\b/g, `$1-o ${user}`)
    .replace(/(^|\s)-g (root|candor)\b/g, `$1-g ${group}`);
}

type Unit = Record<string, string[]>;
/** The [Service] settings of a unit file (or drop-in), each key with every value it was given. */
function parseUnit(text: string): Unit {
  const unit: Unit = {};
  let section = "";
  for (const raw of text.replace(/\\\n/g, " ").split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) section = header[1]!;
    else if (section === "Service") {
      const at = line.indexOf("=");
      (unit[line.slice(0, at).trim()] ??= []).push(line.slice(at + 1).trim());
    }
  }
  return unit;
}

/** systemd's Environment= value: space-separated assignments, each optionally quoted. */
function parseEnvironment(values: string[] = []): Record<string, string> {
  const env: Record<string, string> = {};
  for (const value of values) {
    for (const word of value.match(/"[^"]*"|'[^']*'|\S+/g) ?? []) {
      const assignment = /^["']?(.*?)["']?$/.exec(word)![1]!;
      const at = assignment.indexOf("=");
      if (at > 0) env[assignment.slice(0, at)] = assignment.slice(at + 1);
    }
  }
  return env;
}

/** An EnvironmentFile (systemd's rules: KEY=VALUE lines, comments, optional quotes around the value). */
function parseEnvironmentFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const at = line.indexOf("=");
    if (at <= 0) continue;
    const value = line.slice(at + 1).trim();
    env[line.slice(0, at).trim()] = /^(["']).*\1$/.test(value) ? value.slice(1, -1) : value;
  }
  return env;
}

/** ExecStart= split into words, with $VAR and ${VAR} taken from `env` (an unset one gives no word, as in systemd). */
function commandLine(exec: string, env: Record<string, string>): string[] {
  return exec
    .replace(/^[-@:+!]+/, "")
    .split(/\s+/)
    .flatMap((word) => {
      const whole = /^\$\{?(\w+)\}?$/.exec(word);
      if (whole) return (env[whole[1]!] ?? "").split(/\s+/).filter(Boolean);
      return [word.replace(/\$\{(\w+)\}/g, (_, name: string) => env[name] ?? "")];
    });
}

/** Shell functions standing in for sudo and systemctl; ExecReload gets $MAINPID from us, as from systemd. */
const bashPreamble = (mainPid: number | undefined, execReload: string | undefined) => `set -euo pipefail
sudo() { while [ "\${1#-}" != "$1" ]; do case "$1" in -u|-g) shift 2 ;; *) shift ;; esac; done; "$@"; }
systemctl() {
  if [ "$*" = "reload candor" ] && [ -n "${mainPid ?? ""}" ]; then ${execReload?.replace(/\$\{?MAINPID\}?/g, String(mainPid)) ?? "false"}; return; fi
  echo "systemctl $* is not run by the walkthrough" >&2; return 1
}
`;

let postgresPort = 0;
let candorMainPid: number | undefined;
let candorExecReload: string | undefined;

/**
 * Runs one of the page's blocks as written (relocated), in bash, with a login shell's environment and no more.
 * Asynchronous, so that requests keep being made while it runs.
 */
async function runBlock(name: string, extraEnv: Record<string, string> = {}): Promise<void> {
  step(`running the block walkthrough=${name}`);
  const script = bashPreamble(candorMainPid, candorExecReload) + relocate(blocks.get(name)!, postgresPort);
  log(`\n== walkthrough=${name}\n${script}\n`);
  const child = spawn("bash", ["-c", script], {
    cwd: tmp,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LANG: process.env.LANG ?? "C.UTF-8",
      TMPDIR: os.tmpdir(),
      PGHOST: "127.0.0.1",
      PGPORT: String(postgresPort),
      PGUSER: "postgres",
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  log(output);
  if (code !== 0) {
    throw new Error(
      `the block walkthrough=${name} of docs/deploy.md failed (exit ${code}):\n${output.split("\n").slice(-30).join("\n")}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP(S) as a client from a chosen loopback address

type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string };
let certificate = "";

/**
 * One request. `to` is the address connected to (the site's name, `localhost`, stays in the Host header and TLS's
 * server name): the two proxies serve the one site address from 127.0.0.1 and 127.0.0.2.
 */
function request(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; from?: string; to?: string } = {},
): Promise<Answer> {
  const target = new URL(url);
  const client = target.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      {
        hostname: options.to ?? "127.0.0.1",
        port: target.port,
        path: target.pathname + target.search,
        method: options.method ?? "GET",
        headers: { Host: target.host, ...options.headers },
        localAddress: options.from,
        agent: false,
        ...(target.protocol === "https:" ? { ca: certificate, servername: "localhost" } : {}),
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

async function waitForAnswer(url: string, exited: () => string | undefined, to?: string): Promise<void> {
  const until = Date.now() + 120_000;
  for (;;) {
    const gone = exited();
    if (gone) throw new Error(gone);
    try {
      if ((await request(url, { to })).status < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`${url} did not answer within 120 s`);
    await sleep(200);
  }
}

function startProcess(name: string, command: string[], options: { cwd: string; env: Record<string, string> }) {
  const out = fs.openSync(path.join(tmp, `${name}.log`), "a");
  const child = spawn(command[0]!, command.slice(1), { ...options, stdio: ["ignore", out, out] });
  fs.closeSync(out);
  children.push({ name, child });
  const exited = () =>
    child.exitCode !== null || child.signalCode !== null
      ? `${name} exited (${child.exitCode ?? child.signalCode}): ${fs.readFileSync(path.join(tmp, `${name}.log`), "utf8").slice(-3000)}`
      : undefined;
  return { child, exited };
}

async function stopProcess(child: ReturnType<typeof spawn>, name: string): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
  if (name.startsWith("candor") && child.exitCode !== 0) problems.push(`${name} stopped with ${child.exitCode}`);
}

const query = async <T extends pg.QueryResultRow>(database: string, text: string): Promise<T[]> => {
  const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${postgresPort}/${database}` });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
};

/** The worker processes of a node:cluster primary. */
const workersOf = (pid: number) =>
  spawnSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
    .stdout.split("\n")
    .map((line) => Number(line.trim()))
    .filter((value) => value > 0);

// ---------------------------------------------------------------------------------------------------------------
// The walkthrough

let postgres: Awaited<ReturnType<typeof createOwnPostgres>> | undefined;
try {
  const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: root, encoding: "utf8" });
  if (dirty.trim() !== "") console.log(`${label}: uncommitted changes are not part of the clone:\n${dirty}`);
  // The repository the page clones from: the last commit, as branch main of a repository of its own, so that the
  // upgrade below can push a release to it.
  const origin = path.join(tmp, "origin.git");
  execFileSync("git", ["init", "--quiet", "--bare", "--initial-branch=main", origin]);
  execFileSync("git", ["push", "--quiet", origin, "HEAD:refs/heads/main"], { cwd: root });

  postgres = await createOwnPostgres("walkthrough");
  postgresPort = postgres.port;

  // Step 8.2: clone, install, build.
  await runBlock("install", { CANDOR_REPOSITORY: origin });

  // Step 8.3: the database, its role and the settings; then what the page says to edit.
  await runBlock("settings");
  const envFile = path.join(paths["/etc/candor"], "candor.env");
  const ports = {
    appA: await freePort(),
    appB: await freePort(),
    dead: await freePort(),
    http: await freePort(),
    https: await freePort(),
  };
  // One site address; nginx serves it on 127.0.0.1, HAProxy on 127.0.0.2.
  const publicUrl = `https://localhost:${ports.https}`;
  const settings = relocate(fs.readFileSync(envFile, "utf8"), postgresPort)
    .replace(/^PORT=.*$/m, `PORT=${ports.appA}`)
    .replace(/^PUBLIC_URL=.*$/m, `PUBLIC_URL=${publicUrl}`)
    // No mail server here: mail goes to the outbox directory.
    .replace(/^SMTP_URL=/m, "# SMTP_URL=");
  fs.writeFileSync(envFile, settings);
  const siteEnv = parseEnvironmentFile(settings);
  for (const [key, value] of Object.entries({ HSTS: "true", TRUSTED_PROXIES: "127.0.0.1", WEB_CONCURRENCY: "2" })) {
    if (siteEnv[key] !== value)
      problems.push(`deploy/systemd/candor.env.example has ${key}=${siteEnv[key]}, not ${value}`);
  }
  if (!/^postgres:\/\/candor:[0-9a-f]{48}@/.test(siteEnv.DATABASE_URL ?? "")) {
    problems.push(`the settings block did not set DATABASE_URL: ${siteEnv.DATABASE_URL}`);
  }
  if (fs.realpathSync(path.join(clone, ".env")) !== fs.realpathSync(envFile)) problems.push(".env is not the settings");

  // Step 8.4: the units, checked; Candor run as its unit says.
  const unitDir = path.join(tmp, "units");
  fs.mkdirSync(path.join(unitDir, "haproxy.service.d"), { recursive: true });
  fs.copyFileSync(path.join(clone, "deploy/systemd/candor.service"), path.join(unitDir, "candor.service"));
  fs.copyFileSync(
    path.join(clone, "deploy/systemd/haproxy.service.d/candor.conf"),
    path.join(unitDir, "haproxy.service.d/candor.conf"),
  );
  const debianHaproxyUnit = "/lib/systemd/system/haproxy.service";
  if (fs.existsSync(debianHaproxyUnit)) fs.copyFileSync(debianHaproxyUnit, path.join(unitDir, "haproxy.service"));
  const analyze = spawnSync("systemd-analyze", ["--version"], { encoding: "utf8" });
  if (analyze.error) console.log(`${label}: systemd-analyze is not installed; the unit files are not verified`);
  else {
    for (const unit of ["candor.service", "haproxy.service"]) {
      if (!fs.existsSync(path.join(unitDir, unit))) continue;
      const verified = spawnSync("systemd-analyze", ["verify", path.join(unitDir, unit)], {
        encoding: "utf8",
        env: { ...process.env, SYSTEMD_UNIT_PATH: `${unitDir}:` },
      });
      const complaints = (verified.stdout + verified.stderr).trim();
      if (verified.status !== 0 || complaints !== "") problems.push(`systemd-analyze verify ${unit}: ${complaints}`);
    }
    step("systemd-analyze verify: candor.service and haproxy.service with the drop-in");
  }
  const unit = parseUnit(relocate(fs.readFileSync(path.join(unitDir, "candor.service"), "utf8"), postgresPort));
  const workingDirectory = unit.WorkingDirectory?.[0] ?? "/";
  const environmentFile = unit.EnvironmentFile?.[0]?.replace(/^-/, "");
  if (workingDirectory !== clone) problems.push(`candor.service runs in ${workingDirectory}, not the clone`);
  if (environmentFile !== envFile) problems.push(`candor.service reads ${environmentFile}, not the settings file`);
  const [execStartNode, ...execStartArgs] = commandLine(unit.ExecStart![0]!, {});
  // The page: "if your Node.js 22.22 or later is elsewhere (`command -v node`), change that path".
  const nodeVersion = spawnSync(execStartNode!, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout?.trim();
  const [major = 0, minor = 0] = (nodeVersion ?? "").split(".").map(Number);
  const node = major > 22 || (major === 22 && minor >= 22) ? execStartNode! : process.execPath;
  if (node !== execStartNode) step(`ExecStart's ${execStartNode} is Node ${nodeVersion || "missing"}; using ${node}`);
  candorExecReload = unit.ExecReload?.[0];
  const serviceEnv = (overrides: Record<string, string> = {}) => ({
    PATH: process.env.PATH ?? "",
    ...parseEnvironment(unit.Environment),
    ...parseEnvironmentFile(fs.readFileSync(envFile, "utf8")),
    ...overrides,
  });
  const machineA = startProcess("candor-a", [node, ...execStartArgs], { cwd: workingDirectory, env: serviceEnv() });
  candorMainPid = machineA.child.pid;
  await waitForAnswer(`http://127.0.0.1:${ports.appA}/healthz`, machineA.exited);
  step(`machine A: ${workersOf(candorMainPid!).length} workers on port ${ports.appA}`);

  // A second machine whose QUEUE_KEY_DIR is its own refuses to start, naming the setting; with the shared one it runs.
  const machineB = (queueKeyDir: string) =>
    startProcess(queueKeyDir === siteEnv.QUEUE_KEY_DIR ? "candor-b" : "candor-b-own-keys", [node, ...execStartArgs], {
      cwd: workingDirectory,
      env: serviceEnv({ PORT: String(ports.appB), WEB_CONCURRENCY: "1", QUEUE_KEY_DIR: queueKeyDir }),
    });
  const ownKeys = machineB(path.join(tmp, "machine-b-keys"));
  const refused = await new Promise<number | null>((resolve) => ownKeys.child.once("exit", resolve));
  const refusal = fs.readFileSync(path.join(tmp, "candor-b-own-keys.log"), "utf8");
  if (refused === 0 || !refusal.includes("is not in QUEUE_KEY_DIR")) {
    problems.push(`a machine with a QUEUE_KEY_DIR of its own exited with ${refused}: ${refusal.slice(-1000)}`);
  } else step("a machine with a QUEUE_KEY_DIR of its own refused to start, naming QUEUE_KEY_DIR");
  const machineBShared = machineB(siteEnv.QUEUE_KEY_DIR!);
  await waitForAnswer(`http://127.0.0.1:${ports.appB}/healthz`, machineBShared.exited);

  // Step 8.5: a certificate, and both proxies from deploy/ in front of A, B and a dead address.
  const certDir = path.join(tmp, "certs");
  fs.mkdirSync(certDir);
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost"]
      .concat(["-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
      .concat(["-keyout", path.join(certDir, "privkey.pem"), "-out", path.join(certDir, "fullchain.pem")]),
    { stdio: "ignore" },
  );
  certificate = fs.readFileSync(path.join(certDir, "fullchain.pem"), "utf8");
  fs.writeFileSync(
    path.join(certDir, "candor.pem"),
    certificate + fs.readFileSync(path.join(certDir, "privkey.pem"), "utf8"),
  );
  const upstreams = [ports.appA, ports.appB, ports.dead].map((port) => `127.0.0.1:${port}`);

  // nginx: the site file with its addresses and certificate replaced, inside a main configuration of our own.
  nginxPrefix = fs.mkdtempSync(path.join(os.tmpdir(), "candor-walkthrough-nginx-"));
  fs.chmodSync(nginxPrefix, 0o755);
  let site = fs.readFileSync(path.join(clone, "deploy/nginx/candor.conf"), "utf8");
  const rewrite = (pattern: RegExp, replacement: (match: string, ...groups: string[]) => string, what: string) => {
    if (!pattern.test(site)) problems.push(`deploy/nginx/candor.conf has no ${what}`);
    site = site.replace(pattern, replacement as (match: string) => string);
  };
  let upstream = 0;
  rewrite(
    /^(\s*server )\S+:\d+( [^;]*)?;/gm,
    (_, start, rest) => `${start}${upstreams[upstream++] ?? "missing"}${rest ?? ""};`,
    "upstream servers",
  );
  if (upstream !== upstreams.length) problems.push(`deploy/nginx/candor.conf lists ${upstream} processes, not 3`);
  rewrite(/^\s*listen \[::\]:\d+.*$/gm, () => "", "IPv6 listen lines");
  rewrite(/^(\s*listen )80;/m, (_, start) => `${start}127.0.0.1:${ports.http};`, "listen 80");
  rewrite(/^(\s*listen )443( ssl)/m, (_, start, ssl) => `${start}127.0.0.1:${ports.https}${ssl}`, "listen 443");
  rewrite(/^(\s*ssl_certificate )\S+;/m, (_, start) => `${start}${certDir}/fullchain.pem;`, "ssl_certificate");
  rewrite(/^(\s*ssl_certificate_key )\S+;/m, (_, start) => `${start}${certDir}/privkey.pem;`, "ssl_certificate_key");
  fs.writeFileSync(path.join(nginxPrefix, "candor.conf"), site);
  const temp = (kind: string) => `${kind}_temp_path ${nginxPrefix}/${kind};`;
  fs.writeFileSync(
    path.join(nginxPrefix, "nginx.conf"),
    `daemon off;\nworker_processes 1;\npid ${nginxPrefix}/nginx.pid;\nerror_log ${nginxPrefix}/error.log warn;\n` +
      `events { worker_connections 512; }\nhttp {\n  access_log off;\n  ${["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(temp).join("\n  ")}\n` +
      `  include ${nginxPrefix}/candor.conf;\n}\n`,
  );
  const nginxArgs = ["-p", nginxPrefix, "-c", path.join(nginxPrefix, "nginx.conf")];
  const nginxTest = spawnSync("nginx", [...nginxArgs, "-t"], { encoding: "utf8" });
  if (nginxTest.status !== 0) throw new Error(`nginx -t: ${nginxTest.stderr}`);
  const nginx = startProcess("nginx", ["nginx", ...nginxArgs], {
    cwd: nginxPrefix,
    env: { PATH: process.env.PATH ?? "" },
  });

  // HAProxy: Debian's unit's ExecStart, with its Environment= and the drop-in's, the addresses replaced by ours.
  const haproxyUnit = fs.existsSync(path.join(unitDir, "haproxy.service"))
    ? parseUnit(fs.readFileSync(path.join(unitDir, "haproxy.service"), "utf8"))
    : { ExecStart: ["haproxy -f $CONFIG"] };
  const dropIn = parseUnit(
    relocate(fs.readFileSync(path.join(unitDir, "haproxy.service.d/candor.conf"), "utf8"), postgresPort),
  );
  const ours: Record<string, string> = {
    CANDOR_HTTP_BIND: `127.0.0.2:${ports.http}`,
    CANDOR_HTTPS_BIND: `127.0.0.2:${ports.https}`,
    CANDOR_TLS_CERT: path.join(certDir, "candor.pem"),
    CANDOR_APP1: upstreams[0]!,
    CANDOR_APP2: upstreams[1]!,
    CANDOR_APP3: upstreams[2]!,
  };
  const dropInEnv = parseEnvironment(dropIn.Environment);
  for (const key of Object.keys(dropInEnv)) {
    if (key !== "CONFIG" && !(key in ours))
      problems.push(`the HAProxy drop-in sets ${key}, unknown to the walkthrough`);
  }
  if (dropInEnv.CONFIG !== path.join(clone, "deploy/haproxy.cfg")) {
    problems.push(`the HAProxy drop-in's CONFIG is ${dropInEnv.CONFIG}, not deploy/haproxy.cfg`);
  }
  const haproxyEnv: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    ...parseEnvironment(haproxyUnit.Environment),
    ...dropInEnv,
    ...ours,
    PIDFILE: path.join(tmp, "haproxy.pid"),
    EXTRAOPTS: `-S ${path.join(tmp, "haproxy-master.sock")}`,
  };
  const haproxyCommand = commandLine(haproxyUnit.ExecStart![0]!, haproxyEnv);
  const haproxyCheck = spawnSync(haproxyCommand[0]!, ["-c", "-f", haproxyEnv.CONFIG!], { env: haproxyEnv });
  if (haproxyCheck.status !== 0) throw new Error(`haproxy -c: ${haproxyCheck.stderr}`);
  const haproxy = startProcess("haproxy", haproxyCommand, { cwd: tmp, env: haproxyEnv });

  const proxies = [
    {
      name: "nginx",
      address: "127.0.0.1",
      process: nginx,
      clients: ["127.0.0.11", "127.0.0.12"],
    },
    {
      name: "HAProxy",
      address: "127.0.0.2",
      process: haproxy,
      clients: ["127.0.0.21", "127.0.0.22"],
    },
  ];
  const emails: string[] = [];
  for (const proxy of proxies) {
    const problemsBefore = problems.length;
    const base = publicUrl;
    const to = proxy.address;
    await waitForAnswer(`${base}/healthz`, proxy.process.exited, to);
    const [client, other] = proxy.clients as [string, string];
    // Plain HTTP only redirects.
    const plain = await request(`http://localhost:${ports.http}/search?q=a`, { from: client, to });
    if (plain.status !== 301 || !String(plain.headers.location).startsWith("https://")) {
      problems.push(`${proxy.name}: plain HTTP answered ${plain.status} ${plain.headers.location}`);
    }
    // HSTS on every HTTPS answer, a page and a read of the API.
    for (const page of ["/", "/search", "/api/v1/countries"]) {
      const answer = await request(`${base}${page}`, { from: client, to });
      const hsts = String(answer.headers["strict-transport-security"]);
      if (answer.status !== 200 || !/max-age=31536000/.test(hsts)) {
        problems.push(`${proxy.name}: ${page} answered ${answer.status} with Strict-Transport-Security ${hsts}`);
      }
    }
    // A sign-up over HTTPS sets the session in a __Host- cookie, and every cookie Secure.
    const email = `walkthrough-${proxy.name.toLowerCase()}@example.com`;
    emails.push(email);
    const signUp = await request(`${base}/signup`, {
      method: "POST",
      from: client,
      to,
      headers: {
        Origin: publicUrl,
        "Sec-Fetch-Site": "same-origin",
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ email, password }).toString(),
    });
    const cookies = signUp.headers["set-cookie"] ?? [];
    if (
      signUp.status !== 302 ||
      !cookies.some((cookie) => cookie.startsWith("__Host-candor.session_token=")) ||
      cookies.some((cookie) => !/;\s*Secure(;|$)/i.test(cookie))
    ) {
      problems.push(`${proxy.name}: sign-up answered ${signUp.status} with cookies ${JSON.stringify(cookies)}`);
    }
    // X-Forwarded-For: a client's own is not believed (every attempt counts against its address, whatever it
    // claims), the proxy's is (another client through the same proxy has a limit of its own). Each attempt names
    // another account, so that only the limit per address applies.
    let attempts = 0;
    const attempt = (from: string, claimed: string) =>
      request(`${base}/api/v1/auth/token`, {
        method: "POST",
        from,
        to,
        headers: { "Content-Type": "application/json", "X-Forwarded-For": claimed },
        body: JSON.stringify({
          grant_type: "password",
          email: `nobody-${proxy.address}-${attempts++}@example.com`,
          password: "not the password",
        }),
      }).then((answer) => answer.status);
    const statuses: number[] = [];
    for (let i = 0; i <= rateLimits.signIn.points; i++) statuses.push(await attempt(client, `198.51.100.${i + 1}`));
    const expectedStatuses = [...Array.from({ length: rateLimits.signIn.points }, () => 401), 429];
    if (statuses.join() !== expectedStatuses.join()) {
      problems.push(`${proxy.name}: attempts with made-up X-Forwarded-For answered ${statuses.join(",")}`);
    }
    const otherStatus = await attempt(other, `198.51.100.1`);
    if (otherStatus !== 401) problems.push(`${proxy.name}: another client's first attempt answered ${otherStatus}`);
    step(
      `${proxy.name}: redirect, HSTS, __Host- cookies and X-Forwarded-For ${problems.length === problemsBefore ? "as documented" : "NOT as documented"}`,
    );
  }

  // Something to back up besides the accounts: a company with its review, queued, added through the proxy.
  const token = await request(`${publicUrl}/api/v1/auth/token`, {
    from: "127.0.0.13",
    headers: { "Content-Type": "application/json" },
    method: "POST",
    body: JSON.stringify({ grant_type: "password", email: emails[0], password }),
  });
  const marker = newMarker();
  const added = await request(`${publicUrl}/api/v1/companies`, {
    from: "127.0.0.13",
    method: "POST",
    headers: {
      Authorization: `Bearer ${(JSON.parse(token.body) as { access_token?: string }).access_token}`,
      "Candor-Account-Key": (JSON.parse(token.body) as { vote_key?: string }).vote_key ?? "",
      "Content-Type": "application/json",
    },
    body: JSON.stringify({ company: newCompany(marker), review: companyReview(marker, 1) }),
  });
  if (added.status !== 202) problems.push(`adding a company answered ${added.status}: ${added.body.slice(0, 300)}`);

  // Step 5: backup while running, restore into a new database, the same rows (the queued review too: its key is in
  // the QUEUE_KEY_DIR of the settings).
  await runBlock("backup");
  await runBlock("restore");
  const tables = await query<{ name: string }>(
    "candor",
    "select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' and table_name <> 'rate_limits' order by 1",
  );
  const counts = async (database: string) =>
    Promise.all(
      tables.map(async ({ name }) => {
        const rows = await query<{ count: string }>(database, `select count(*) as count from "${name}"`);
        return `${name}=${rows[0]!.count}`;
      }),
    );
  const [original, restored] = [await counts("candor"), await counts("candor_restored")];
  if (original.join() !== restored.join()) {
    problems.push(`restored ${restored.join(" ")}, backed up ${original.join(" ")}`);
  } else step(`backup and restore: ${tables.length} tables with the same row counts (${original.join(" ")})`);
  const count = (table: string) =>
    Number(original.find((entry) => entry.startsWith(`${table}=`))?.slice(table.length + 1));
  if (count("users") !== emails.length)
    problems.push(`${count("users")} accounts in the database, ${emails.length} signed up`);
  if (count("pending_reviews") !== 1) problems.push(`${count("pending_reviews")} queued reviews backed up, not 1`);

  // Step 6: a release with one more migration is pushed; the page's upgrade runs while requests keep coming.
  const release = path.join(tmp, "release");
  execFileSync("git", ["clone", "--quiet", origin, release]);
  const migrationName = "9000-walkthrough-release";
  fs.writeFileSync(
    path.join(release, `app/db/migrations/${migrationName}.ts`),
    `import type { Kysely } from "kysely";\n\nexport async function up(db: Kysely<any>): Promise<void> {\n  await db.schema.createTable("walkthrough_release").addColumn("id", "integer", (column) => column.primaryKey()).execute();\n}\n`,
  );
  const migrate = path.join(release, "app/db/migrate.server.ts");
  const migrateSource = fs.readFileSync(migrate, "utf8");
  const lastImport = [...migrateSource.matchAll(/^import \* as \w+ from "\.\/migrations\/[^"]+";$/gm)].at(-1)!;
  const withImport =
    migrateSource.slice(0, lastImport.index + lastImport[0].length) +
    `\nimport * as walkthroughRelease from "./migrations/${migrationName}.ts";` +
    migrateSource.slice(lastImport.index + lastImport[0].length);
  fs.writeFileSync(
    migrate,
    withImport.replace(
      /(export const migrations[^=]*= \{[\s\S]*?)\n\};/,
      `$1\n  "${migrationName}": walkthroughRelease,\n};`,
    ),
  );
  const git = (args: string[]) =>
    execFileSync("git", ["-c", "user.name=Walkthrough", "-c", "user.email=walkthrough@example.com", ...args], {
      cwd: release,
      stdio: "ignore",
    });
  git(["add", "-A"]);
  git(["commit", "--quiet", "-m", "A release with one more migration"]);
  git(["push", "--quiet", "origin", "HEAD:main"]);

  const workersBefore = workersOf(candorMainPid!);
  let polling = true;
  const failures: string[] = [];
  let answered = 0;
  const poller = (async () => {
    while (polling) {
      for (const proxy of proxies) {
        try {
          const answer = await request(`${publicUrl}/search`, { from: proxy.clients[1], to: proxy.address });
          if (answer.status === 200) answered += 1;
          else failures.push(`${proxy.name} ${answer.status}`);
        } catch (error) {
          failures.push(`${proxy.name} ${(error as Error).message}`);
        }
      }
      await sleep(100); // a reader's pace, not a load test
    }
  })();
  await runBlock("upgrade");
  // The reload is done when no worker of before is left and the new ones serve.
  const replacedBy = Date.now() + 120_000;
  let workersAfter = workersOf(candorMainPid!);
  while (
    (workersAfter.length !== workersBefore.length || workersAfter.some((pid) => workersBefore.includes(pid))) &&
    Date.now() < replacedBy
  ) {
    await sleep(200);
    workersAfter = workersOf(candorMainPid!);
  }
  await request(`${publicUrl}/search`);
  polling = false;
  await poller;
  if (workersAfter.some((pid) => workersBefore.includes(pid)) || workersAfter.length !== workersBefore.length) {
    problems.push(`after the reload the workers are ${workersAfter.join(",")}; before ${workersBefore.join(",")}`);
  }
  const applied = await query<{ name: string }>(
    "candor",
    `select name from kysely_migration where name = '${migrationName}'`,
  );
  if (applied.length !== 1) problems.push(`the release's migration ${migrationName} was not applied`);
  const head = (dir: string) => execFileSync("git", ["rev-parse", "HEAD"], { cwd: dir, encoding: "utf8" }).trim();
  if (head(clone) !== head(release)) problems.push("git pull did not bring the release");
  if (failures.length > 0)
    problems.push(`${failures.length} requests failed during the upgrade: ${failures.slice(0, 5).join("; ")}`);
  step(
    `upgrade: migration applied, workers ${workersBefore.join(",")} replaced by ${workersAfter.join(",")}, ${answered} requests answered and ${failures.length} failed meanwhile`,
  );

  await stopProcess(haproxy.child, "haproxy");
  await stopProcess(nginx.child, "nginx");
  await stopProcess(machineBShared.child, "candor-b");
  await stopProcess(machineA.child, "candor-a");
} catch (error) {
  problems.push(`the walkthrough stopped: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  postgres?.remove();
}
finish();

function finish(): never {
  if (problems.length > 0) log(`\n== problems\n${problems.join("\n")}\n`);
  if (problems.length > 0) console.log(`${label}: the commands and their output are in ${logFile}`);
  else for (const dir of [tmp, nginxPrefix]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  printProblems(label, problems);
  console.log(`${label}: ${((Date.now() - started) / 1000).toFixed(1)} s${problems.length > 0 ? " — FAILED" : ""}`);
  process.exit(problems.length > 0 ? 1 : 0);
}
