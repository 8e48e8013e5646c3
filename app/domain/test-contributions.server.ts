import { expect } from "vitest";
import { companyCriteria, managerCriteria } from "#app/lib/ratings.ts";
import {
  type CompanyInput,
  type CompanyReviewInput,
  companyReviewSchema,
  companySchema,
  type ManagerInput,
  type ManagerReviewInput,
  managerReviewSchema,
  managerSchema,
} from "./contribution-input.server.ts";
import { type Author, ContributionError, type ContributionFailure, type Submission } from "./contributions.server.ts";

/**
 * Valid contributions for tests, as a form sends them (strings) and as the schemas hand them to the domain.
 * Every rating is 4 unless a test says otherwise.
 */

export const testReceiptSecret = "candor-contributions-test-secret-0123456789";

export function author(userId: string): Author {
  return { userId, secret: testReceiptSecret };
}

/** An author for tests where who wrote it does not matter. */
export const someone = author("user-someone");

/** The subject's id of a submission that must have been published at once (the suites run with PUBLISH_INTERVAL=0). */
export function published(submission: Submission): number {
  expect(submission).toMatchObject({ published: true });
  if (!submission.published) throw new Error("The submission was queued, not published.");
  return submission.id;
}

function ratings(keys: readonly string[], value: string): Record<string, string> {
  return Object.fromEntries(keys.map((key) => [key, value]));
}

export function companyForm(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: "Acme GmbH",
    country: "DE",
    state: "Bavaria",
    city: "Munich",
    website: "acme.com",
    glassdoor_url: "reviews.example.com/acme",
    industry: "Software",
    ...fields,
  };
}

export function companyReviewForm(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...ratings(companyCriteria, "4"),
    again: "Yes",
    recommend: "No",
    has_oncall: "Yes",
    tags: ["Fair Pay", "Hybrid"],
    review_text: "Solid engineering culture and honest leadership.",
    recent_layoffs: "",
    ...fields,
  };
}

export function managerForm(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    first_name: "Jane",
    last_name: "Doe",
    title: "Engineering Manager",
    city: "Munich",
    state: "Bavaria",
    linkedin_url: "linkedin.com/in/jane-doe",
    department: "Platform",
    direct_reports: "Yes",
    ...fields,
  };
}

export function managerReviewForm(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...ratings(managerCriteria, "4"),
    recommended: "Yes",
    invested: "Yes",
    communication: "No",
    gives_credit: "Yes",
    again: "No",
    tags: ["Supportive"],
    review_text: "Clear goals, fair feedback, and time for the team.",
    ...fields,
  };
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
