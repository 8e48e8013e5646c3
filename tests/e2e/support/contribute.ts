import type { BrowserContext, Page } from "playwright-core";
import type { companyKeys } from "#app/domain/contribution-input.server.ts";
import { companyCriteria, companyYesNo, managerCriteria, managerYesNo } from "#app/lib/ratings.ts";
import { fieldLengths, maxTagsPerReview, reviewTextLength } from "#app/lib/limits.ts";
import { industrySections } from "#app/lib/industries.ts";
import { companyTags } from "#app/lib/tags.ts";
import { sameOrigin, type Visitor } from "./http.ts";

/** The fields of a company as the add forms name them  */
export type CompanyDraft = {
  name: string;
  country: string;
  state: string;
  city: string;
  website: string;
  glassdoor_url: string;
  industry: string;
};

/** The fields of a manager as the add forms name them; the department only on /manager/addAlone. */
export type ManagerDraft = {
  first_name: string;
  last_name: string;
  title: string;
  city: string;
  state: string;
  linkedin_url: string;
  department?: string;
};

/** A review as the forms take it: one rating for every criterion, one answer for every question. */
export type ReviewDraft = {
  rating?: number;
  answer?: "Yes" | "No";
  tags: string[];
  text: string;
  /** Company reviews only: YYYY-MM-DD. */
  layoffs?: string;
};

const fourBytes = "\u{1F600}"; // one character, four bytes of UTF-8, twelve once form-encoded
const longest = (length: number) => fourBytes.repeat(length);

/**
 * The largest body a person can legitimately send: a company added together with its review, every text at the
 * longest the forms take (app/lib/limits.ts), typed in 4-byte characters; the web addresses at their longest; the
 * longest tags.
 */
export function largestLegitimateForm(): URLSearchParams {
  const texts: Record<(typeof companyKeys)[number], string> = {
    name: longest(fieldLengths.name),
    country: "US",
    state: longest(fieldLengths.state),
    city: longest(fieldLengths.city),
    website: `https://example.com/${"a".repeat(fieldLengths.website - 20)}`,
    glassdoor_url: `https://example.com/${"a".repeat(fieldLengths.glassdoor_url - 20)}`,
    industry: [...industrySections].sort((a, b) => b.title.length - a.title.length)[0]!.title,
  };
  const form = new URLSearchParams(texts);
  for (const key of companyCriteria) form.append(key, "5");
  for (const key of companyYesNo) form.append(key, "Yes");
  const tags = [...companyTags].sort((a, b) => b.length - a.length).slice(0, maxTagsPerReview);
  for (const tag of tags) form.append("tags", tag);
  form.append("review_text", longest(reviewTextLength.max));
  form.append("recent_layoffs", "2024-02-29");
  return form;
}

let drafted = 0;

/** A company no other test has added: a name of its own and a website of its own. */
export function companyDraft(label = "Company"): CompanyDraft {
  drafted += 1;
  const slug = `${label}-${process.pid}-${drafted}`.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  return {
    name: `${label} ${process.pid} ${drafted}`,
    country: "US",
    state: "Oregon",
    city: "Portland",
    website: `${slug}.example`,
    glassdoor_url: `reviews.example.com/${slug}`,
    industry: "J",
  };
}

export function managerDraft(firstName = "Robin"): ManagerDraft {
  drafted += 1;
  return {
    first_name: firstName,
    last_name: `Tester${drafted}`,
    title: "Engineering Manager",
    city: "Portland",
    state: "Oregon",
    linkedin_url: `linkedin.com/in/${firstName.toLowerCase()}-tester-${process.pid}-${drafted}`,
  };
}

/* ---------------------------------------------------------------- plain HTTP */

/** The form fields a browser posts for a company review (tags repeat, so a list of pairs). */
export function companyReviewEntries(review: ReviewDraft): Array<[string, string]> {
  return [
    ...companyCriteria.map((key): [string, string] => [key, String(review.rating ?? 4)]),
    ...companyYesNo.map((key): [string, string] => [key, review.answer ?? "Yes"]),
    ...review.tags.map((tag): [string, string] => ["tags", tag]),
    ["review_text", review.text],
    ["recent_layoffs", review.layoffs ?? ""],
  ];
}

export function managerReviewEntries(review: ReviewDraft): Array<[string, string]> {
  return [
    ...managerCriteria.map((key): [string, string] => [key, String(review.rating ?? 4)]),
    ...managerYesNo.map((key): [string, string] => [key, review.answer ?? "Yes"]),
    ...review.tags.map((tag): [string, string] => ["tags", tag]),
    ["review_text", review.text],
  ];
}

export function companyEntries(company: CompanyDraft, prefix = ""): Array<[string, string]> {
  return Object.entries(company).map(([key, value]): [string, string] => [`${prefix}${key}`, value]);
}

export function managerEntries(manager: ManagerDraft, directReports: "Yes" | "No" = "Yes"): Array<[string, string]> {
  return [...Object.entries(manager), ["direct_reports", directReports]];
}

/** Posts a form (fields may repeat) from the site's own origin, or with `headers` instead. */
export function postEntries(
  visitor: Visitor,
  path: string,
  entries: Array<[string, string]>,
  headers: HeadersInit = sameOrigin(visitor.baseURL),
): Promise<Response> {
  return visitor.request(path, { method: "POST", headers, body: new URLSearchParams(entries) });
}

/** Gives a browser context the session (and every other cookie) of a visitor signed in over HTTP. */
export async function shareCookies(visitor: Visitor, context: BrowserContext): Promise<void> {
  await context.addCookies([...visitor.cookies].map(([name, value]) => ({ name, value, url: visitor.baseURL })));
}

/** The cookies of a browser context, as a Cookie header for plain HTTP requests. */
export async function cookieHeaderOf(context: BrowserContext): Promise<string> {
  return (await context.cookies()).map((cookie) => `${cookie.name}=${cookie.value}`).join("; ");
}

/* ---------------------------------------------------------------- in the browser */

export async function fillCompanyFields(page: Page, company: CompanyDraft, prefix = ""): Promise<void> {
  for (const [key, value] of Object.entries(company)) {
    const input = page.locator(`[name="${prefix}${key}"]`);
    if (key === "country" || key === "industry") await input.selectOption(value);
    else await input.fill(value);
  }
}

export async function fillManagerFields(
  page: Page,
  manager: ManagerDraft,
  directReports: "Yes" | "No" = "Yes",
): Promise<void> {
  for (const [key, value] of Object.entries(manager)) await page.locator(`[name="${key}"]`).fill(value);
  await page.locator(`input[name="direct_reports"][value="${directReports}"]`).check();
}

export async function rateEvery(page: Page, criteria: readonly string[], rating: number): Promise<void> {
  for (const key of criteria) await page.locator(`input[name="${key}"][value="${rating}"]`).check();
}

export async function answerEvery(page: Page, questions: readonly string[], answer: "Yes" | "No"): Promise<void> {
  for (const key of questions) await page.locator(`input[name="${key}"][value="${answer}"]`).check();
}

export function tagBox(page: Page, tag: string) {
  return page.locator(`input[name="tags"][value="${tag}"]`);
}

/**
 * Chooses tags as a person does: with JavaScript the list is folded, so each tag is looked up in the tag search box
 * first; without it every tag is in view.
 */
export async function chooseTags(page: Page, tags: readonly string[]): Promise<void> {
  const search = page.locator("#tag-search");
  const searchable = (await search.count()) > 0;
  for (const tag of tags) {
    if (searchable) await search.fill(tag);
    await tagBox(page, tag).check();
  }
  if (searchable) await search.fill("");
}

/** Fills every part of a company review (criteria, questions, tags, text and the layoffs date when given). */
export async function fillCompanyReview(page: Page, review: ReviewDraft): Promise<void> {
  await rateEvery(page, companyCriteria, review.rating ?? 4);
  await answerEvery(page, companyYesNo, review.answer ?? "Yes");
  await chooseTags(page, review.tags);
  await page.locator('[name="review_text"]').fill(review.text);
  if (review.layoffs) await page.locator('[name="recent_layoffs"]').fill(review.layoffs);
}

export async function fillManagerReview(page: Page, review: ReviewDraft): Promise<void> {
  await rateEvery(page, managerCriteria, review.rating ?? 4);
  await answerEvery(page, managerYesNo, review.answer ?? "Yes");
  await chooseTags(page, review.tags);
  await page.locator('[name="review_text"]').fill(review.text);
}
