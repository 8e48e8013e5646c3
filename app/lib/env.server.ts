import { z } from "zod";

/**
 * An address setting, its scheme lower-cased: schemes are case-insensitive (RFC 3986), so "HTTPS://…" is https for
 * every check that reads the scheme (Secure and __Host- cookies, the refusal of RATE_LIMITS=off).
 */
const urlSetting = (protocol: RegExp) =>
  z.url({ protocol }).transform((url) => url.replace(/^[a-z][a-z0-9+.-]*:/i, (scheme) => scheme.toLowerCase()));

const booleanish = z
  .enum(["true", "false", "1", "0", "yes", "no", "on", "off"])
  .transform((value) => ["true", "1", "yes", "on"].includes(value));

/** Every setting Candor reads, checked once at start-up. README.md lists them. */
export const envSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
    HOST: z.string().min(1).default("0.0.0.0"),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    DATABASE_URL: z
      .string()
      .min(1)
      .default("./data/candor.sqlite")
      .refine((url) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || /^postgres(ql)?:\/\//i.test(url), {
        message: "must be a postgres:// URL or a path to an SQLite file",
      }),
    /**
     * Optional: a streaming replica of the PostgreSQL database at DATABASE_URL. Pages and API reads of visitors
     * without a cookie or credentials read from it; writes, sessions and signed-in visitors use the primary.
     */
    DATABASE_READ_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//i, "must be a postgres:// URL")
      .optional(),
    /** Optional: Redis for the rate-limit counters and the change channel between processes, instead of PostgreSQL. */
    REDIS_URL: urlSetting(/^rediss?$/).optional(),
    /** Worker processes to run (node:cluster). More than 1 needs PostgreSQL. */
    WEB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
    /**
     * Where the Prometheus metrics are served (`host:port`, e.g. 127.0.0.1:9464): an address of its own, never the
     * site's. Unset: no metrics. docs/deploy.md lists them; none dates a submission finer than a batch.
     */
    METRICS_ADDRESS: z
      .string()
      .regex(/^(\[[0-9a-fA-F:]+\]|[^:\s]+):\d{1,5}$/, "must be host:port, e.g. 127.0.0.1:9464")
      .optional(),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
    DEMO_DATA: z.enum(["auto", "always", "never"]).default("auto"),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
    HSTS: booleanish.default(false),
    /**
     * Tests only: each answer says in a Server-Timing header how much CPU time the process spent on it. Never in
     * production: it hands every client a measure of the work its request caused.
     */
    SERVER_TIMING: booleanish.default(false),
    /** The site's public address, used in links sent by e-mail. Defaults to http://localhost:PORT. */
    PUBLIC_URL: urlSetting(/^https?$/).optional(),
    /** SMTP server for outgoing mail, e.g. smtps://user:pass@mail.example.com. Unset: mail goes to OUTBOX_DIR. */
    SMTP_URL: urlSetting(/^smtps?$/).optional(),
    OUTBOX_DIR: z.string().min(1).default("./data/outbox"),
    MAIL_FROM: z.string().min(3).default("Candor <no-reply@localhost>"),
    /**
     * Signs sessions and keys the anonymity receipts: at least 32 characters. Required on PostgreSQL; with the embedded
     * database a random one is made once and kept next to it.
     */
    AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
    /** Reverse proxies whose X-Forwarded-For is believed: comma-separated IPs or CIDR ranges. Unset: none. */
    TRUSTED_PROXIES: z
      .string()
      .default("")
      .transform((value) =>
        value
          .split(",")
          .map((entry) => entry.trim())
          .filter(Boolean),
      ),
    /**
     * Seconds between publications of queued reviews; each wait is drawn from [0.5, 1.5] × this. 0 publishes each
     * submission at once (tests and demos: no timing protection). docs/decisions/0013-publication-in-sealed-batches.md.
     */
    PUBLISH_INTERVAL: z.coerce.number().min(0).default(1800),
    /** A manager's reviews are published only in groups of at least this many reviews of that manager. */
    MANAGER_MIN_REVIEWS: z.coerce.number().int().min(1).default(3),
    /** A batch is published only when its reviews come from at least this many accounts. */
    PUBLISH_MIN_AUTHORS: z.coerce.number().int().min(1).default(3),
    /**
     * A work-address domain's "Verified" badge shows on reviews only once at least this many addresses of that domain
     * obtained verification tokens in the quarter: a badge from a smaller group would point at its few members.
     */
    VERIFIED_MIN_PEOPLE: z.coerce.number().int().min(1).default(10),
    /** Where the keys that seal queued reviews are kept: never in the database, never in its backups. */
    QUEUE_KEY_DIR: z.string().min(1).default("./data/queue-keys"),
    /**
     * The manipulation signals (volume spikes, rating shifts, near-duplicate texts) checked at each publication and by
     * the daily scan; "off" for load tests and benchmarks that post many reviews of one subject on purpose.
     */
    MANIPULATION_CHECKS: z.enum(["on", "off"]).default("on"),
    /**
     * The scheduled ranking of subjects among their peers (decision 0017); "off" for tests that compare everything
     * stored before and after a request, since a run writes whenever it comes. `npm run admin -- peers` still ranks.
     */
    PEER_RANKING: z.enum(["on", "off"]).default("on"),
    /**
     * Every rate limit (sign-in guesses, sign-ups, contributions, the contact form, the API); "off" only for test
     * suites that drive many accounts from one address. Never on a site people use: it lifts the guessing limits.
     */
    RATE_LIMITS: z.enum(["on", "off"]).default("on"),
    /** Where the contact form's messages go. */
    CONTACT_EMAIL: z.email().default("owner@localhost"),
  })
  .superRefine((settings, context) => {
    // A site served over https (or with HSTS) is one people use: its guessing limits cannot be switched off.
    if (settings.RATE_LIMITS === "off" && (settings.HSTS || settings.PUBLIC_URL?.startsWith("https:"))) {
      context.addIssue({
        code: "custom",
        path: ["RATE_LIMITS"],
        message: "off is for test suites only, not for a site served over https (PUBLIC_URL or HSTS)",
      });
    }
  });

export type Env = z.infer<typeof envSchema>;

export function parseEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n${problems.join("\n")}`);
  }
  return result.data;
}

let cached: Env | undefined;
export function env(): Env {
  cached ??= parseEnv();
  return cached;
}
