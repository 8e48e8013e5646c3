import type { Generated, Insertable, Selectable } from "kysely";
import type { CompanyCriterion, CompanyYesNo, ManagerCriterion, ManagerYesNo } from "#app/lib/ratings.ts";

type Sums<K extends string> = { [P in K as `sum_${P}`]: Generated<number> };
type YesCounts<K extends string> = { [P in K as `${P}_yes`]: Generated<number> };

/**
 * Companies carry their precomputed aggregates (docs/data-model.md): pages never aggregate over reviews.
 */
export type CompaniesTable = {
  id: Generated<number>;
  name: string;
  /** Case- and accent-folded name, computed in TypeScript at write time; search matches it. */
  folded_name: string;
  /** nameSkeleton(name), the TR39 skeleton: with website_key, unique, so a lookalike name is the same company. */
  name_skeleton: string;
  /** ISO 3166-1 alpha-2 code. */
  country: string;
  state: string;
  city: string;
  website: string;
  glassdoor_url: string;
  /** websiteKey(website): with name_skeleton, unique, so a company cannot be added twice. */
  website_key: string;
  /** The ISIC section's title; for companies added before the fixed list, the industry as it was typed. */
  industry: string;
  /** The ISIC Rev. 4 section's letter (app/lib/industries.ts); null for an older free text that names none. */
  industry_section: string | null;
  /** YYYY-MM-DD, or null when no layoffs were reported. */
  recent_layoffs: string | null;
  is_demo: Generated<number>;
  created_on: string;
  review_count: Generated<number>;
  latest_has_oncall: Generated<number>;
  /** Sum over the reviews that stand of the square of each one's rating total (for the spread of the scores). */
  sum_total_squares: Generated<number>;
  /** The mean overall score drawn towards 3 as if by 5 more reviews, 0 without reviews: the "Best rated" order. */
  rating_rank: Generated<number>;
} & Sums<CompanyCriterion> &
  YesCounts<Exclude<CompanyYesNo, "has_oncall">>;

/** No user id, e-mail, IP or session here, ever (docs/data-model.md, what is never stored). */
export type CompanyReviewsTable = {
  id: string;
  company_id: number;
  review_text: string;
  /** JSON array of tag names, at most 5. */
  tags: string;
  /** YYYY-MM-DD: a day, not an instant, so the row cannot be matched to a session's activity. */
  created_on: string;
  /** The sum of its criteria (its overall score is this over their number, floored): for lists by score. */
  rating_total: number;
  /** The registrable domain of the author's verified work address ("Verified: works at …"), or null. */
  verified_domain: Generated<string | null>;
  /** How many accounts marked it helpful: kept in each vote's transaction, beside a receipt that names no one. */
  helpful_votes: Generated<number>;
} & { [K in CompanyCriterion]: number } & { [K in CompanyYesNo]: number };

export type ManagersTable = {
  id: Generated<number>;
  first_name: string;
  last_name: string;
  /** Folded "first last": search matches first name, last name or both. */
  folded_name: string;
  /** nameSkeleton("first last"): with linkedin_url, what makes two managers the same person. */
  name_skeleton: string;
  country: string;
  state: string;
  city: string;
  title: string;
  department: string | null;
  linkedin_url: string;
  /**
   * What an account's receipt for this manager is keyed on: the person as added (name skeleton and LinkedIn
   * profile), fixed when the manager was created; null for managers created before, whose receipts use the id.
   */
  receipt_ref: string | null;
  is_demo: Generated<number>;
  created_on: string;
  review_count: Generated<number>;
  /** As for companies: the sum of the squared rating totals of the reviews that stand. */
  sum_total_squares: Generated<number>;
  /** As for companies. */
  rating_rank: Generated<number>;
} & Sums<ManagerCriterion> &
  YesCounts<ManagerYesNo>;

export type ManagerCompaniesTable = {
  manager_id: number;
  company_id: number;
};

export type ManagerReviewsTable = {
  id: string;
  manager_id: number;
  review_text: string;
  tags: string;
  created_on: string;
  /** As for company reviews. */
  rating_total: number;
  /** As for company reviews. */
  helpful_votes: Generated<number>;
  /** As for company reviews: the domain of one of the manager's companies, or null. */
  verified_domain: Generated<string | null>;
} & { [K in ManagerCriterion]: number } & { [K in ManagerYesNo]: number };

/**
 * One-per-user rules without linking the user to the review: the key is HMAC(secret, user id + subject).
 * No review id, no timestamp.
 */
export type ReviewReceiptsTable = {
  receipt: string;
};

/** A queued review: sealed, fixed-size, no time (docs/decisions/0013-publication-in-sealed-batches.md). */
export type PendingReviewsTable = {
  id: string;
  key_id: string;
  sealed: Uint8Array;
  /** A random place: on SQLite the integer primary key, so rows lie in random order (migration 0024). */
  slot: number;
  /** Why publications leave this row out (it could not be written), for the operator; null for a waiting row. */
  set_aside: string | null;
};

/** HMAC(queue key, receipt) of each queued manager review: refuses a second one while the first waits. */
export type PendingReceiptsTable = {
  key: string;
};

/** One row: this database's queue id (names its key files) and the key that seals new rows. */
export type QueueStateTable = {
  id: number;
  queue_id: string;
  key_id: string | null;
};

/** Hashes of API access and refresh tokens; a family is one better-auth session. */
export type ApiTokensTable = {
  token_hash: string;
  session_id: string;
  kind: "access" | "refresh";
  /** Unix time in milliseconds. */
  expires_at: number;
  used: Generated<number>;
};

/** better-auth's session rows, as far as our own code reads them. */
export type SessionsTable = {
  id: string;
  userId: string;
  token: string;
  expiresAt: Date | string;
};

export type UsersTable = {
  id: string;
  email: string;
  emailVerified: boolean | number;
  twoFactorEnabled: boolean | number | null;
};

/** One signing key per (registrable domain, quarter); the private half sealed, erased when the quarter ends. */
export type VerificationKeysTable = {
  domain: string;
  quarter: string;
  key_id: string;
  public_n: string;
  public_e: string;
  private_sealed: Buffer | null;
};

/**
 * A mailed code waiting to be typed: the SHA-256 of the challenge the browser keeps, and under a key derived from that
 * challenge alone the domain, the address's keyed hash and the code's hash. No account, no domain in clear.
 */
export type VerificationCodesTable = {
  id: string;
  sealed: Uint8Array;
  quarter: string;
  /** Unix time in milliseconds, rounded up to the whole minute. */
  expires_at: number | string;
  attempts: Generated<number>;
};

/** An address that obtained tokens this quarter, as a keyed hash; the rows go when the quarter ends. */
export type VerifiedAddressesTable = { address_hash: string; domain: string; quarter: string };

/** The hash of a token spent on a published review: no review id, no time. */
/** One partially blind RSA key per quarter for one-review tokens (docs/decisions/0031-one-review-tokens.md). */
export type ReviewTokenKeysTable = {
  period: string;
  key_id: string;
  public_n: string;
  public_e: string;
  /** Sealed PKCS #8; null once the quarter ended. */
  private_sealed: Buffer | null;
};

export type SpentTokensTable = { token_hash: string };
/** One row: the count of changes other processes made, and the last one's scope (migration 0037). */
export type ChangeGenerationTable = { id: number; generation: number | string | bigint; scope: string };
/**
 * An account's vote key, only as AES-256-GCM ciphertext under argon2id(password, salt): the server opens it only
 * while the password is at hand (docs/decisions/0016-helpful-votes-with-a-key-only-the-account-holds.md).
 */
/**
 * Each account's key (the account key; first made for votes), wrapped under the password, and `key_check`:
 * HMAC(account key, "account-key-check"), so the server can tell that a presented key is this account's without
 * holding anything that recomputes what the key made (null until the account's next sign-in after the change).
 */
export type VoteKeysTable = { user_id: string; salt: Uint8Array; wrapped: Uint8Array; key_check: string | null };

/** HMAC(vote key, review id) of each helpful vote: no account, no review id, no time. */
export type VoteReceiptsTable = { receipt: string };

/** One row: the votes of withdrawn reviews, whose receipts stay, so receipts and counts add up. */
export type VoteTotalsTable = { id: number; orphaned: number | string };

/** When each scheduled job is next due (ms since the epoch); migration 0013. */
export type ScheduledJobsTable = {
  name: string;
  next_run_ms: number;
};

/** An account granted a moderation role from the command line; shown by its pseudonym only. */
export type ModeratorsTable = {
  user_id: string;
  role: "moderator" | "admin";
  pseudonym: string;
};

/** A reader's report of a review: never who wrote the review; the contact address is erased once notified. */
export type ReviewReportsTable = {
  id: Generated<number>;
  review_id: string;
  reason: string;
  explanation: string;
  contact_email: string | null;
  /** YYYY-MM-DD. */
  received_on: string;
  /** The decision that closed it; null while open. */
  decision_id: number | null;
};

/** Append-only: every moderation decision, by pseudonym, with its reason and statement. */
export type ModerationDecisionsTable = {
  id: Generated<number>;
  review_id: string;
  subject: "company" | "manager";
  subject_id: number;
  action: "keep" | "remove" | "restore";
  reason: string | null;
  statement: string;
  moderator: string;
  /** YYYY-MM-DD. */
  decided_on: string;
};

/** The reviews removed now: what the decisions add up to, kept in each decision's transaction. */
export type RemovedReviewsTable = {
  review_id: string;
  decision_id: number;
};

/** SHA-256 of a review's one-time key: lets its holder appeal or withdraw it. Never an account. */
export type ReviewKeysTable = {
  key_hash: string;
  review_id: string;
};

/** An author's appeal against a removal, made with the review key. */
export type ReviewAppealsTable = {
  id: Generated<number>;
  review_id: string;
  statement: string;
  /** YYYY-MM-DD. */
  received_on: string;
  decision_id: number | null;
};

/** The kind of subject a distribution row counts for. */
export type SubjectKind = "company" | "manager";

/**
 * How many reviews of a subject that stand gave `criterion` the `value` 1 to 5; `criterion` "overall" counts their
 * overall scores. Kept with the sums, in the transaction that publishes, removes, restores or withdraws a review.
 */
export type RatingCountsTable = {
  subject: SubjectKind;
  subject_id: number;
  criterion: string;
  value: number;
  count: number;
};

/** How many reviews of a subject that stand carry `tag`; kept like `rating_counts`. */
export type TagCountsTable = {
  subject: SubjectKind;
  subject_id: number;
  tag: string;
  count: number;
};

/**
 * Per subject and month of publication ('YYYY-MM'), how many reviews that stand were published then and the sum of
 * each criterion over them (`sum_<criterion>`, as on the subject's row). Kept with the subject's sums.
 */
export type MonthsTable = {
  subject_id: number;
  month: string;
  review_count: number;
} & Record<`sum_${string}`, number>;

/** Where a subject is compared: among its country's, or (companies) its industry section's. */
export type PeerScope = "country" | "industry";

/** The mean of a group's ranked subjects' averages on a criterion, written by the percentile job. */
export type PeerAveragesTable = {
  subject: SubjectKind;
  scope: PeerScope;
  scope_value: string;
  criterion: string;
  average: number | null;
  subjects: number;
  computed_ms: number;
};

/** The share (0-100) of a group's other ranked subjects whose average on a criterion is lower; the job writes it. */
export type SubjectPercentilesTable = {
  subject: SubjectKind;
  subject_id: number;
  scope: PeerScope;
  scope_value: string;
  criterion: string;
  percentile: number;
};

/** A manipulation signal that fired for a subject: never a review or an account. */
export type SubjectAlertsTable = {
  id: Generated<number>;
  subject: "company" | "manager";
  subject_id: number;
  signal: "volume-spike" | "rating-shift" | "near-duplicates";
  /** The figures that made it fire, for moderators: counts and probabilities, never a review. */
  detail: string;
  /** YYYY-MM-DD. */
  raised_on: string;
};

/** Append-only: a moderator's release of an alert. An alert without one is open. */
export type AlertDecisionsTable = {
  id: Generated<number>;
  alert_id: number;
  statement: string;
  moderator: string;
  /** YYYY-MM-DD. */
  decided_on: string;
};

/** The days the scheduled signal scan ran. */
export type SignalScansTable = { day: string };

export type Database = {
  companies: CompaniesTable;
  company_reviews: CompanyReviewsTable;
  managers: ManagersTable;
  manager_companies: ManagerCompaniesTable;
  manager_reviews: ManagerReviewsTable;
  review_receipts: ReviewReceiptsTable;
  pending_reviews: PendingReviewsTable;
  pending_receipts: PendingReceiptsTable;
  queue_state: QueueStateTable;
  verification_keys: VerificationKeysTable;
  verification_codes: VerificationCodesTable;
  verified_addresses: VerifiedAddressesTable;
  spent_tokens: SpentTokensTable;
  change_generation: ChangeGenerationTable;
  review_token_keys: ReviewTokenKeysTable;
  scheduled_jobs: ScheduledJobsTable;
  api_tokens: ApiTokensTable;
  sessions: SessionsTable;
  users: UsersTable;
  moderators: ModeratorsTable;
  review_reports: ReviewReportsTable;
  moderation_decisions: ModerationDecisionsTable;
  removed_reviews: RemovedReviewsTable;
  review_keys: ReviewKeysTable;
  review_appeals: ReviewAppealsTable;
  rating_counts: RatingCountsTable;
  tag_counts: TagCountsTable;
  company_months: MonthsTable;
  manager_months: MonthsTable;
  peer_averages: PeerAveragesTable;
  subject_percentiles: SubjectPercentilesTable;
  subject_alerts: SubjectAlertsTable;
  alert_decisions: AlertDecisionsTable;
  signal_scans: SignalScansTable;
  vote_keys: VoteKeysTable;
  vote_receipts: VoteReceiptsTable;
  vote_totals: VoteTotalsTable;
};

export type Company = Selectable<CompaniesTable>;
export type NewCompany = Insertable<CompaniesTable>;
export type CompanyReview = Selectable<CompanyReviewsTable>;
export type NewCompanyReview = Insertable<CompanyReviewsTable>;
export type Manager = Selectable<ManagersTable>;
export type NewManager = Insertable<ManagersTable>;
export type ManagerReview = Selectable<ManagerReviewsTable>;
export type NewManagerReview = Insertable<ManagerReviewsTable>;
