import { companyCriteria, companyYesNo, managerCriteria, managerYesNo } from "#app/lib/ratings.ts";

/**
 * Valid contributions, in one place for every kind of test: as the HTML forms send them (strings, `*Form`) and as
 * the JSON API takes them (numbers and booleans, `*Json`). Each takes overrides on top.
 */

type Fields = Record<string, unknown>;

function ratings(keys: readonly string[], value: string): Record<string, string> {
  return Object.fromEntries(keys.map((key) => [key, value]));
}

/* ---------------------------------------------------------------- as the forms send them (every rating 4) */

export function companyForm(fields: Fields = {}): Fields {
  return {
    name: "Acme GmbH",
    country: "DE",
    state: "Bavaria",
    city: "Munich",
    website: "acme.com",
    glassdoor_url: "reviews.example.com/acme",
    industry: "J",
    ...fields,
  };
}

export function companyReviewForm(fields: Fields = {}): Fields {
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

export function managerForm(fields: Fields = {}): Fields {
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

export function managerReviewForm(fields: Fields = {}): Fields {
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

/* ---------------------------------------------------------------- as the JSON API takes them */

/**
 * Ratings that vary with `seed` (criterion i gets (seed + i) mod 5 + 1) and answers that alternate (question i is
 * yes when seed + i is even), as booleans or, with `answers: "text"`, as "Yes" and "No".
 */
function variedReview(
  criteria: readonly string[],
  questions: readonly string[],
  seed: number,
  answers: "boolean" | "text",
) {
  const yes = (index: number) => (seed + index) % 2 === 0;
  return {
    ...Object.fromEntries(criteria.map((key, index) => [key, ((seed + index) % 5) + 1])),
    ...Object.fromEntries(
      questions.map((key, index) => [key, answers === "text" ? (yes(index) ? "Yes" : "No") : yes(index)]),
    ),
  };
}

export function companyReviewJson(
  fields: Fields & { tags: string[]; review_text: string },
  options: { seed?: number; answers?: "boolean" | "text" } = {},
): Fields {
  return { ...variedReview(companyCriteria, companyYesNo, options.seed ?? 0, options.answers ?? "boolean"), ...fields };
}

export function managerReviewJson(
  fields: Fields & { tags: string[]; review_text: string },
  options: { seed?: number; answers?: "boolean" | "text" } = {},
): Fields {
  return { ...variedReview(managerCriteria, managerYesNo, options.seed ?? 0, options.answers ?? "boolean"), ...fields };
}

/** A new company in Portland, Oregon; the name and addresses make it new. */
export function companyJson(fields: Fields & { name: string; website: string; glassdoor_url: string }): Fields {
  return { country: "US", state: "Oregon", city: "Portland", industry: "Information and communication", ...fields };
}

/** A new manager in Portland, Oregon, with direct reports. */
export function managerJson(fields: Fields & { first_name: string; last_name: string; linkedin_url: string }): Fields {
  return {
    title: "Engineering Manager",
    city: "Portland",
    state: "Oregon",
    ...fields,
    direct_reports: fields.direct_reports ?? true,
  };
}
