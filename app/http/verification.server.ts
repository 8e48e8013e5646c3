import type { Kysely } from "kysely";
import { database } from "#app/db/database.server.ts";
import type { Database } from "#app/db/schema.ts";
import { serverSecret } from "#app/db/secret.server.ts";
import {
  addressLimitKey,
  type CodeRequest,
  type IssuedTokens,
  issueVerificationTokens,
  requestVerificationCode,
  type VerificationAddressInput,
  type VerificationCodeInput,
} from "#app/domain/verification.server.ts";
import { hashIdentifier } from "#app/http/client.server.ts";
import { consume } from "#app/lib/rate-limit.server.ts";

/**
 * The two steps of verifying a work address, shared by the page and the JSON API, each behind its rate limits: codes
 * per client address, per account and per work address (keyed hashes, in this process's memory only, never in the
 * database or Redis), and code checks with issuance per client address. The account is used for its rate limit
 * only; nothing stored names it.
 */
export async function startVerification(
  ipKey: string,
  userId: string,
  input: VerificationAddressInput,
  site: { db: Kysely<Database>; secret: string } = { db: database().db, secret: serverSecret() },
): Promise<CodeRequest> {
  await consume("verificationCodeIp", ipKey);
  await consume("verificationCodeAccount", hashIdentifier(site.secret, "verification-account", userId));
  await consume("verificationCodeAddress", addressLimitKey(site.secret, input.email));
  return requestVerificationCode(site.db, site.secret, input);
}

export async function finishVerification(ipKey: string, input: VerificationCodeInput): Promise<IssuedTokens> {
  await consume("verificationIssue", ipKey);
  return issueVerificationTokens(database().db, serverSecret(), input);
}
