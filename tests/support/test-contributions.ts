import { createHash } from "node:crypto";
import { expect } from "vitest";
import {
  type CompanyInput,
  type CompanyReviewInput,
  companyReviewSchema,
  companySchema,
  type ManagerInput,
  type ManagerReviewInput,
  managerReviewSchema,
  managerSchema,
} from "#app/domain/contribution-input.server.ts";
import { companyForm, companyReviewForm, managerForm, managerReviewForm } from "./payloads.ts";
import {
  type Author,
  ContributionError,
  type ContributionFailure,
  managerReference,
  managerReviewReceipt,
  type Submission,
} from "#app/domain/contributions.server.ts";
import type { Kysely } from "kysely";
import type { Database } from "#app/db/schema.ts";

/**
 * Valid contributions as the schemas hand them to the domain (the form builders are in payloads.ts): every rating
 * is 4 unless a test says otherwise.
 */

export const testReceiptSecret = "candor-contributions-test-secret-0123456789";

/** A test account's key: 32 bytes of its id's SHA-256, as a real one is 32 random bytes only its client holds. */
export function testAccountKey(userId: string): string {
  return createHash("sha256").update(`test account key\u0000${userId}`).digest("base64url");
}

export function author(userId: string): Author {
  return { userId, secret: testReceiptSecret, accountKey: testAccountKey(userId) };
}

/** The receipt `author` has for the manager `managerId` (keyed on the manager's reference, under the account key). */
export async function receiptOf(db: Kysely<Database>, author: Author, managerId: number): Promise<string> {
  const manager = await db
    .selectFrom("managers")
    .select(["id", "receipt_ref"])
    .where("id", "=", managerId)
    .executeTakeFirstOrThrow();
  return managerReviewReceipt(author, managerReference(manager));
}

/** An author for tests where who wrote it does not matter. */
export const someone = author("user-someone");

/** The subject's id of a submission that must have been published at once (the suites run with PUBLISH_INTERVAL=0). */
export function published(submission: Submission): number {
  expect(submission).toMatchObject({ published: true });
  if (!submission.published) throw new Error("The submission was queued, not published.");
  return submission.id;
}

export const company = (fields: Record<string, unknown> = {}): CompanyInput => companySchema.parse(companyForm(fields));
export const companyReview = (fields: Record<string, unknown> = {}): CompanyReviewInput =>
  companyReviewSchema.parse(companyReviewForm(fields));
export const manager = (fields: Record<string, unknown> = {}): ManagerInput => managerSchema.parse(managerForm(fields));
export const managerReview = (fields: Record<string, unknown> = {}): ManagerReviewInput =>
  managerReviewSchema.parse(managerReviewForm(fields));

/** Awaits a write that must be refused, and checks how. */
export async function expectRefusal(write: Promise<unknown>, kind: ContributionFailure): Promise<ContributionError> {
  const error = await write.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ContributionError);
  expect((error as ContributionError).kind).toBe(kind);
  return error as ContributionError;
}
