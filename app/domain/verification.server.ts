import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  type KeyObject,
  randomBytes,
  randomInt,
  timingSafeEqual,
} from "node:crypto";
import type { Kysely } from "kysely";
import { z } from "zod";
import type { Database } from "#app/db/schema.ts";
import {
  blindSign,
  generateSigningKey,
  keyIdOf,
  modulusBytes,
  privateKeyOf,
  type PublicKeyJwk,
  publicKeyOf,
  verifySignature,
} from "#app/lib/blind-rsa.server.ts";
import { env } from "#app/lib/env.server.ts";
import { hostOf, mailboxOf, personalProviderOf, registrableDomain } from "#app/lib/mailboxes.server.ts";
import { sendMail } from "#app/lib/mail.server.ts";
import { verificationMessages as m } from "#app/lib/verification-messages.ts";
import { verificationLimits } from "#app/lib/limits.ts";
import { decodeToken, quarterOf, tokenMessage } from "#app/lib/verification-token.ts";

/**
 * Verified employees without a link (docs/decisions/0030-blind-signed-verification-tokens.md). A signed-in user
 * proves they read mail at a work address; the browser then obtains RSA blind signatures (RFC 9474) on tokens it
 * made itself, so the server signs without seeing what it signs. A token spent with a review later proves "someone
 * who read mail at this domain this quarter", and nothing stored or signed ties it to its issuance. No account id
 * and no address is stored here: a waiting code's row is keyed by the digest of a challenge only the browser keeps
 * and seals its domain and address hash under a key derived from that challenge; the addresses that obtained tokens
 * are keyed hashes, gone when the quarter ends. Nothing about the account is written in these requests
 * (docs/decisions/0054-verification-writes-nothing-about-the-account.md).
 */

export type VerificationFailure =
  | "address-invalid"
  | "free-mail"
  | "code-invalid"
  | "code-wrong"
  | "code-expired"
  | "already-verified"
  | "request-invalid"
  | "token-invalid"
  | "token-domain"
  | "token-quarter"
  | "token-spent"
  | "review-token-taken"
  | "review-token-invalid"
  | "review-token-manager"
  | "review-token-spent"
  | "review-token-session";

export class VerificationError extends Error {
  readonly kind: VerificationFailure;
  readonly status: number;
  constructor(kind: VerificationFailure, message?: string) {
    const defaults: Record<VerificationFailure, [string, number]> = {
      "address-invalid": [m.addressInvalid, 400],
      "free-mail": [m.freeMail, 400],
      "code-invalid": [m.codeInvalid, 400],
      "code-wrong": [m.codeWrong, 400],
      "code-expired": [m.codeExpired, 410],
      "already-verified": [m.alreadyVerified, 409],
      "request-invalid": [m.requestInvalid, 400],
      "token-invalid": [m.tokenInvalid, 400],
      "token-domain": [m.tokenInvalid, 400],
      "token-quarter": [m.tokenQuarter, 400],
      "token-spent": [m.tokenSpent, 409],
      "review-token-taken": [m.reviewTokenTaken, 409],
      "review-token-invalid": [m.reviewTokenInvalid, 400],
      "review-token-manager": [m.reviewTokenManager, 400],
      "review-token-spent": [m.reviewTokenSpent, 409],
      "review-token-session": [m.reviewTokenSession, 400],
    };
    const [text, status] = defaults[kind];
    super(message ?? text);
    this.name = "VerificationError";
    this.kind = kind;
    this.status = status;
  }
}

export { registrableDomain };

const addressSchema = z.string({ error: m.addressInvalid }).trim().toLowerCase().max(254, m.addressInvalid);

export const verificationAddressSchema = z.object({
  email: addressSchema.pipe(z.email(m.addressInvalid)),
});
export type VerificationAddressInput = z.infer<typeof verificationAddressSchema>;

const base64urlOf = (bytes: number) =>
  z
    .string({ error: m.requestInvalid })
    .regex(/^[A-Za-z0-9_-]+$/, m.requestInvalid)
    .refine((value) => Buffer.from(value, "base64url").length === bytes, m.requestInvalid);

export const verificationCodeSchema = z.object({
  challenge: z.string({ error: m.codeExpired }).regex(/^[A-Za-z0-9_-]{22}$/, m.codeExpired),
  code: z
    .string({ error: m.codeInvalid })
    .trim()
    .regex(/^\d{6}$/, m.codeInvalid),
  blinded: z
    .array(base64urlOf(modulusBytes), { error: m.needsJavaScript })
    .min(1, m.needsJavaScript)
    .max(verificationLimits.tokensPerVerification, m.requestInvalid),
});
export type VerificationCodeInput = z.infer<typeof verificationCodeSchema>;

/** The address's work domain, or the reason it is refused (not an address, a free-mail, forwarding or throwaway service). */
export function workDomainOf(address: string): string {
  const domain = registrableDomain(hostOf(address));
  if (!domain) throw new VerificationError("address-invalid");
  const provider = personalProviderOf(address);
  if (provider) throw new VerificationError("free-mail", provider === "free-mail" ? m.freeMail : m.forwardingMail);
  return domain;
}

// ---------------------------------------------------------------------------------------------------------------
// Keyed hashes

function addressHash(secret: string, quarter: string, address: string): string {
  return createHmac("sha256", secret)
    .update(`verification-address\u0000${quarter}\u0000${address}`)
    .digest("base64url");
}

// ---------------------------------------------------------------------------------------------------------------
// Challenges: rows only the browser's challenge opens

/** The row id of a challenge: its SHA-256, so the row names nothing until someone brings the challenge. */
export function challengeDigest(challenge: string): string {
  return createHash("sha256").update(`verification-challenge\u0000${challenge}`).digest("base64url");
}

function challengeKey(challenge: string): Buffer {
  return Buffer.from(hkdfSync("sha256", challenge, "candor-verification-challenge", "sealed", 32));
}

/** What a challenge's row holds, sealed: the domain, the address's keyed hash and the code's hash. */
type ChallengeContent = { domain: string; addressHash: string; codeHash: string };

function codeHashOf(challenge: string, code: string): string {
  return createHmac("sha256", challengeKey(challenge)).update(`verification-code\u0000${code}`).digest("base64url");
}

export function sealChallenge(challenge: string, content: ChallengeContent): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", challengeKey(challenge), iv);
  cipher.setAAD(Buffer.from(challengeDigest(challenge)));
  const body = Buffer.concat([cipher.update(JSON.stringify(content)), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

function openChallenge(challenge: string, sealed: Uint8Array): ChallengeContent | undefined {
  const bytes = Buffer.from(sealed);
  try {
    const decipher = createDecipheriv("aes-256-gcm", challengeKey(challenge), bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(challengeDigest(challenge)));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    const text = Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]);
    return JSON.parse(text.toString("utf8")) as ChallengeContent;
  } catch {
    return undefined;
  }
}

/** A code's expiry, rounded up to the whole minute: the row does not date its request to the millisecond. */
function expiryOf(now: Date): number {
  const minute = 60_000;
  return Math.ceil((now.getTime() + verificationLimits.codeMinutes * minute) / minute) * minute;
}

/** What the server keeps of a spent token: the hash of its signed message (no signature, no nonce). */
export function spentTokenHash(message: Uint8Array): string {
  return createHash("sha256").update(message).digest("base64url");
}

// ---------------------------------------------------------------------------------------------------------------
// Signing keys: one per (domain, quarter)

function sealingKey(secret: string, domain: string, quarter: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "candor-verification-keys", `${domain}\u0000${quarter}`, 32));
}

/**
 * Seals a private key for storage under a key derived from the secret and its (domain, quarter); one-review keys
 * use the scope "one-review", which no registrable domain can be.
 */
export function sealPrivate(secret: string, domain: string, quarter: string, keyId: string, der: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealingKey(secret, domain, quarter), iv);
  cipher.setAAD(Buffer.from(keyId));
  const body = Buffer.concat([cipher.update(der), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

export function openPrivate(secret: string, domain: string, quarter: string, keyId: string, sealed: Buffer): Buffer {
  const decipher = createDecipheriv("aes-256-gcm", sealingKey(secret, domain, quarter), sealed.subarray(0, 12));
  decipher.setAAD(Buffer.from(keyId));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
}

export type PublicSigningKey = { domain: string; quarter: string; keyId: string; publicKey: PublicKeyJwk };

const privateCache = new Map<string, KeyObject>();

async function keyRow(db: Kysely<Database>, domain: string, quarter: string) {
  return db
    .selectFrom("verification_keys")
    .selectAll()
    .where("domain", "=", domain)
    .where("quarter", "=", quarter)
    .executeTakeFirst();
}

/**
 * The signing key of (domain, quarter), made on first use. The primary key (domain, quarter) keeps it one: two
 * processes making it together keep the first one written, and every request of the quarter signs with that key,
 * whose public half is listed publicly (so a key made for one person would show).
 */
export async function signingKeyFor(
  db: Kysely<Database>,
  secret: string,
  domain: string,
  quarter: string,
): Promise<PublicSigningKey> {
  let row = await keyRow(db, domain, quarter);
  if (!row) {
    const { privateDer, publicKey } = await generateSigningKey();
    const keyId = keyIdOf(publicKey);
    await db
      .insertInto("verification_keys")
      .values({
        domain,
        quarter,
        key_id: keyId,
        public_n: publicKey.n,
        public_e: publicKey.e,
        private_sealed: sealPrivate(secret, domain, quarter, keyId, privateDer),
      })
      .onConflict((conflict) => conflict.columns(["domain", "quarter"]).doNothing())
      .execute();
    row = await keyRow(db, domain, quarter);
    if (!row) throw new Error("The signing key could not be stored.");
  }
  return { domain, quarter, keyId: row.key_id, publicKey: { kty: "RSA", n: row.public_n, e: row.public_e } };
}

async function privateKeyFor(db: Kysely<Database>, secret: string, key: PublicSigningKey): Promise<KeyObject> {
  const cached = privateCache.get(key.keyId);
  if (cached) return cached;
  const row = await keyRow(db, key.domain, key.quarter);
  if (!row?.private_sealed || row.key_id !== key.keyId) throw new VerificationError("code-expired");
  const privateKey = privateKeyOf(
    openPrivate(secret, key.domain, key.quarter, key.keyId, Buffer.from(row.private_sealed)),
  );
  privateCache.set(key.keyId, privateKey);
  return privateKey;
}

/** Every public signing key, for /.well-known/candor-keys.json: by quarter, then domain. */
export async function publicSigningKeys(db: Kysely<Database>): Promise<PublicSigningKey[]> {
  const rows = await db
    .selectFrom("verification_keys")
    .select(["domain", "quarter", "key_id", "public_n", "public_e"])
    .orderBy("quarter", "desc")
    .orderBy("domain")
    .execute();
  return rows.map((row) => ({
    domain: row.domain,
    quarter: row.quarter,
    keyId: row.key_id,
    publicKey: { kty: "RSA", n: row.public_n, e: row.public_e },
  }));
}

/**
 * What a past quarter leaves: its address hashes and codes are deleted, and its private keys erased, so nobody can
 * test an address against them or mint a token of that quarter any more. The public halves stay listed.
 */
export async function forgetPastQuarters(db: Kysely<Database>, now = new Date()): Promise<void> {
  const quarter = quarterOf(now);
  await db.deleteFrom("verified_addresses").where("quarter", "!=", quarter).execute();
  await db
    .deleteFrom("verification_codes")
    .where((eb) => eb.or([eb("quarter", "!=", quarter), eb("expires_at", "<", now.getTime())]))
    .execute();
  await db
    .updateTable("verification_keys")
    .set({ private_sealed: null })
    .where("quarter", "!=", quarter)
    .where("private_sealed", "is not", null)
    .execute();
  for (const key of privateCache.keys()) privateCache.delete(key);
}

// ---------------------------------------------------------------------------------------------------------------
// Step 1: a code mailed to the work address

export type CodeRequest = {
  challenge: string;
  domain: string;
  quarter: string;
  key: PublicSigningKey;
  tokens: number;
};

export type VerificationSettings = { minPeople: number };

export function verificationSettings(): VerificationSettings {
  return { minPeople: env().VERIFIED_MIN_PEOPLE };
}

/** The rate-limit key of an address's mailbox (its spellings count together): a keyed hash, never the address. */
export function addressLimitKey(secret: string, address: string): string {
  return createHmac("sha256", secret)
    .update(`verification-limit\u0000${mailboxOf(address)}`)
    .digest("base64url");
}

/**
 * Mails a 6-digit code to the work address and answers the challenge id the code goes with, and the domain's
 * signing key the browser blinds its tokens for. Whether the address was verified before is not told here (anyone
 * could ask about anyone's address), only to whoever types the code.
 */
export async function requestVerificationCode(
  db: Kysely<Database>,
  secret: string,
  input: VerificationAddressInput,
  now = new Date(),
): Promise<CodeRequest> {
  const domain = workDomainOf(input.email);
  const quarter = quarterOf(now);
  await forgetPastQuarters(db, now);
  const key = await signingKeyFor(db, secret, domain, quarter);
  const challenge = randomBytes(16).toString("base64url");
  const code = String(randomInt(1_000_000)).padStart(6, "0");
  // The row names neither the domain nor the address: only the challenge, which the browser keeps, opens it.
  await db
    .insertInto("verification_codes")
    .values({
      id: challengeDigest(challenge),
      sealed: sealChallenge(challenge, {
        domain,
        // The mailbox, not the spelling: "jane+1@", "Jane@" and "jane@" are one person, verified once a quarter.
        addressHash: addressHash(secret, quarter, mailboxOf(input.email)),
        codeHash: codeHashOf(challenge, code),
      }),
      quarter,
      expires_at: expiryOf(now),
    })
    .execute();
  await sendMail({
    to: input.email,
    subject: `Your Candor code: ${code}`,
    text: [
      `Your code is ${code}. It works for ${verificationLimits.codeMinutes} minutes.`,
      "",
      "Someone, probably you, asked to verify this work address on Candor. Type the code on the page where you asked for it.",
      "Your address is not stored, and the reviews you write cannot be tied to it. If you did not ask, ignore this mail.",
    ].join("\n"),
  });
  return { challenge, domain, quarter, key, tokens: verificationLimits.tokensPerVerification };
}

// ---------------------------------------------------------------------------------------------------------------
// Step 2: the code, and the blind signatures

export type IssuedTokens = { domain: string; quarter: string; keyId: string; signatures: string[] };

/**
 * Checks the code and signs the browser's blinded tokens with the domain's key of the quarter. The address's keyed
 * hash is recorded (one verification per address per quarter); the code row is deleted. The server never sees the
 * tokens themselves, only blinded numbers that every token of the quarter could have come from.
 */
export async function issueVerificationTokens(
  db: Kysely<Database>,
  secret: string,
  input: VerificationCodeInput,
  now = new Date(),
): Promise<IssuedTokens> {
  const id = challengeDigest(input.challenge);
  const row = await db.selectFrom("verification_codes").selectAll().where("id", "=", id).executeTakeFirst();
  const content = row && openChallenge(input.challenge, row.sealed);
  if (!row || !content || Number(row.expires_at) < now.getTime() || row.quarter !== quarterOf(now)) {
    if (row) await db.deleteFrom("verification_codes").where("id", "=", id).execute();
    throw new VerificationError("code-expired");
  }
  const expected = Buffer.from(content.codeHash);
  const given = Buffer.from(codeHashOf(input.challenge, input.code));
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    // Counted in the row, so parallel guesses cannot slip past: the fifth wrong code deletes it.
    const counted = await db
      .updateTable("verification_codes")
      .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
      .where("id", "=", id)
      .returning("attempts")
      .executeTakeFirst();
    if (!counted || counted.attempts >= verificationLimits.codeAttempts) {
      await db.deleteFrom("verification_codes").where("id", "=", id).execute();
      throw new VerificationError("code-expired");
    }
    throw new VerificationError("code-wrong");
  }
  const { domain } = content;
  const key = await signingKeyFor(db, secret, domain, row.quarter);
  const privateKey = await privateKeyFor(db, secret, key);
  // Sign first: a malformed blinded value refuses the request before the code is used up.
  let signatures: string[];
  try {
    signatures = input.blinded.map((blinded) =>
      blindSign(privateKey, Buffer.from(blinded, "base64url")).toString("base64url"),
    );
  } catch {
    throw new VerificationError("request-invalid");
  }
  const recorded = await db.transaction().execute(async (trx) => {
    const deleted = await trx.deleteFrom("verification_codes").where("id", "=", id).executeTakeFirst();
    // A second request with the same code, racing this one, finds the row gone.
    if (Number(deleted.numDeletedRows) !== 1) return "used" as const;
    const inserted = await trx
      .insertInto("verified_addresses")
      .values({ address_hash: content.addressHash, domain, quarter: row.quarter })
      .onConflict((conflict) => conflict.column("address_hash").doNothing())
      .returning("address_hash")
      .executeTakeFirst();
    return inserted ? ("ok" as const) : ("again" as const);
  });
  if (recorded === "used") throw new VerificationError("code-expired");
  if (recorded === "again") throw new VerificationError("already-verified");
  return { domain, quarter: row.quarter, keyId: key.keyId, signatures };
}

// ---------------------------------------------------------------------------------------------------------------
// Spending

/** How many addresses of this domain obtained tokens this quarter. */
export async function verifiedCount(db: Kysely<Database>, domain: string, quarter: string): Promise<number> {
  const row = await db
    .selectFrom("verified_addresses")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("domain", "=", domain)
    .where("quarter", "=", quarter)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** True when reviews of companies on this domain may carry the badge this quarter (the threshold is met). */
export async function badgeAvailable(
  db: Kysely<Database>,
  domain: string,
  settings: VerificationSettings = verificationSettings(),
  now = new Date(),
): Promise<boolean> {
  return (await verifiedCount(db, domain, quarterOf(now))) >= settings.minPeople;
}

/** The domains a review form may badge, each with whether its threshold is met, and the threshold. */
export type BadgeDomains = { domains: { domain: string; badgeAvailable: boolean }[]; minPeople: number };

/** What a review form needs to offer the badge for a subject whose company websites are `websites`. */
export async function badgeDomainsOf(
  db: Kysely<Database>,
  websites: readonly string[],
  settings: VerificationSettings = verificationSettings(),
): Promise<BadgeDomains> {
  const names = [
    ...new Set(websites.map((website) => registrableDomain(website)).filter((name) => name !== undefined)),
  ];
  const domains = await Promise.all(
    names.map(async (domain) => ({ domain, badgeAvailable: await badgeAvailable(db, domain, settings) })),
  );
  return { domains, minPeople: settings.minPeople };
}

/** The websites of a manager's companies: a verification token of any of their domains badges a review. */
export async function managerWebsites(db: Kysely<Database>, managerId: number): Promise<string[]> {
  const rows = await db
    .selectFrom("manager_companies")
    .innerJoin("companies", "companies.id", "manager_companies.company_id")
    .select("companies.website")
    .where("manager_companies.manager_id", "=", managerId)
    .orderBy("companies.id")
    .execute();
  return rows.map((row) => row.website);
}

/** A checked token: the badge it earns (or why not) and the hash that marks it spent. */
export type CheckedToken =
  { badge: true; domain: string; tokenHash: string } | { badge: false; domain: string; minPeople: number };

/**
 * Checks a token sent with a review whose subject's company websites are `websites` (a company's one, or a
 * manager's companies'): well formed, of this quarter, of one of those domains, signed by that domain's key of the
 * quarter, not spent already (published). A token waiting in the publication queue is caught when the review is
 * queued. Below the threshold the token is not taken.
 */
export async function checkToken(
  db: Kysely<Database>,
  value: string,
  websites: readonly string[],
  subject: "company" | "manager" = "company",
  settings: VerificationSettings = verificationSettings(),
  now = new Date(),
): Promise<CheckedToken> {
  const token = decodeToken(value);
  if (!token) throw new VerificationError("token-invalid");
  const domains = websites.map((website) => registrableDomain(website) ?? website);
  if (!domains.includes(token.domain)) {
    const message = subject === "company" ? m.tokenDomain : m.tokenManagerDomain;
    throw new VerificationError("token-domain", message(token.domain, [...new Set(domains)].join(", ")));
  }
  if (token.quarter !== quarterOf(now)) throw new VerificationError("token-quarter");
  const row = await keyRow(db, token.domain, token.quarter);
  if (!row) throw new VerificationError("token-invalid");
  const message = tokenMessage(token);
  const publicKey = publicKeyOf({ kty: "RSA", n: row.public_n, e: row.public_e });
  if (!verifySignature(publicKey, message, Buffer.from(token.signature, "base64url"))) {
    throw new VerificationError("token-invalid");
  }
  const tokenHash = spentTokenHash(message);
  const spent = await db
    .selectFrom("spent_tokens")
    .select("token_hash")
    .where("token_hash", "=", tokenHash)
    .executeTakeFirst();
  if (spent) throw new VerificationError("token-spent");
  if ((await verifiedCount(db, token.domain, token.quarter)) < settings.minPeople) {
    return { badge: false, domain: token.domain, minPeople: settings.minPeople };
  }
  return { badge: true, domain: token.domain, tokenHash };
}
