import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { guidelineMessages } from "#app/lib/guidelines.ts";
import { fieldLengths } from "#app/lib/limits.ts";
import { contributionMessages as m } from "#app/lib/messages.ts";
import { companyCriteria, companyYesNo, managerCriteria, managerYesNo } from "#app/lib/ratings.ts";
import { companyTags, managerTags } from "#app/lib/tags.ts";
import {
  companyKeys,
  companyReviewSchema,
  companySchema,
  hasNullValues,
  managerReviewSchema,
  managerSchema,
} from "./contribution-input.server.ts";
import { companyForm, companyReviewForm, managerForm, managerReviewForm } from "#tests/support/payloads.ts";

/** The messages a schema gives for `field` (empty when the field is accepted). */
function problems(schema: z.ZodType, input: unknown, field: string): string[] {
  const result = schema.safeParse(input);
  if (result.success) return [];
  return result.error.issues.filter((issue) => issue.path[0] === field).map((issue) => issue.message);
}

function without(values: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _removed, ...rest } = values;
  return rest;
}

const reviewForms = [
  {
    kind: "company",
    schema: companyReviewSchema,
    form: companyReviewForm,
    criteria: companyCriteria,
    yesNo: companyYesNo,
    tagList: companyTags,
  },
  {
    kind: "manager",
    schema: managerReviewSchema,
    form: managerReviewForm,
    criteria: managerCriteria,
    yesNo: managerYesNo,
    tagList: managerTags,
  },
] as const;

describe.each(reviewForms)("the $kind review schema", ({ schema, form, criteria, yesNo, tagList }) => {
  it("accepts a complete review", () => {
    expect(schema.safeParse(form()).success).toBe(true);
  });

  it.each([...criteria])(
    "refuses %s when missing, 0, 6, x, 2.5 or 5 spelled otherwise, and accepts 1 to 5",
    (criterion) => {
      expect(problems(schema, without(form(), criterion), criterion)).toEqual([m.rateEvery]);
      // Only a plain digit as text: "0x5", "5e0", " 5", "5.0", "+5" and "0b101" are 5 to Number(), and were taken
      // (fails when the schema converts with Number again, checked).
      const spelledOtherwise = ["0x5", "5e0", " 5", "5 ", "5.0", "+5", "0b101", "0o5", "05", "５"];
      for (const refused of ["", "0", "6", "x", "2.5", 0, 6, 2.5, null, ...spelledOtherwise]) {
        expect(problems(schema, form({ [criterion]: refused }), criterion), String(refused)).toEqual([m.rateEvery]);
      }
      for (const accepted of ["1", "2", "3", "4", "5", 1, 5]) {
        const result = schema.parse(form({ [criterion]: accepted })) as Record<string, unknown>;
        expect(result[criterion]).toBe(Number(accepted));
      }
    },
  );

  it.each([...yesNo])("requires Yes or No for %s and stores Yes as 1 and No as 0", (question) => {
    const answer = (value: unknown) => (schema.parse(form({ [question]: value })) as Record<string, unknown>)[question];
    expect(answer("Yes")).toBe(1);
    expect(answer("No")).toBe(0);
    expect(answer(true)).toBe(1);
    expect(answer(false)).toBe(0);
    for (const refused of ["yes", "maybe", "", 1, null]) {
      expect(problems(schema, form({ [question]: refused }), question), String(refused)).toEqual([m.answer]);
    }
    expect(problems(schema, without(form(), question), question)).toEqual([m.answer]);
  });

  it("needs between 1 and 5 different tags from the list", () => {
    const tags = (value: unknown) => problems(schema, form({ tags: value }), "tags");
    expect(tags([])).toEqual([m.chooseTags]);
    expect(tags(undefined)).toEqual([m.chooseTags]);
    expect(tags(tagList.slice(0, 6))).toEqual([m.chooseTags]);
    expect(tags([tagList[0], tagList[0]])).toEqual([m.chooseTags]);
    expect(tags([tagList[0], "Not A Tag"])).toEqual([m.unknownTag]);
    expect(tags(tagList.slice(0, 5))).toEqual([]);
    expect(tags(tagList.slice(-1))).toEqual([]);
  });

  it("refuses review text of 5 characters or fewer, and over 5000", () => {
    const text = (value: unknown) => problems(schema, form({ review_text: value }), "review_text");
    expect(text("short")).toEqual([m.textTooShort]);
    expect(text("  short  ")).toEqual([m.textTooShort]);
    expect(text(undefined)).toEqual([m.textTooShort]);
    expect(text("x".repeat(5001))).toEqual([m.textTooLong]);
    // The guideline check is not run on an over-long text: its patterns would take minutes on a megabyte.
    expect(text("a.".repeat(500_000))).toEqual([m.textTooLong]);
    expect(text("enough")).toEqual([]);
    expect(text("x".repeat(5000))).toEqual([]);
  });

  it("refuses links, e-mail addresses and phone numbers in the text, naming the rule broken", () => {
    const text = (value: string) => problems(schema, form({ review_text: value }), "review_text");
    expect(text("Apply through https://jobs.example.org before it closes")).toEqual([guidelineMessages.link]);
    expect(text("Their careers page acme-careers.com says otherwise")).toEqual([guidelineMessages.link]);
    expect(text("Write to jane.doe@acme.com about the culture")).toEqual([guidelineMessages.email]);
    expect(text("Call her at +1 (555) 123-4567 any time")).toEqual([guidelineMessages.phone]);
    expect(guidelineMessages.link).toMatch(/no links/);
    expect(guidelineMessages.email).toMatch(/no personal information/);
    expect(guidelineMessages.phone).toMatch(/no personal information/);
    expect(text("I worked there 2019-2023 and liked it")).toEqual([]);
    // A right-to-left override would show "moc.emca@eod.enaj" as jane.doe@acme.com: removed, it is checked as stored.
    expect(text("Write to \u202Emoc.emca@eod.enaj\u202C about the culture")).toEqual([guidelineMessages.email]);
    const parsed = schema.parse(form({ review_text: "Fair \u2067boss\u2069 and \u202Ekind team\u202C overall" }));
    expect(parsed.review_text).toBe("Fair boss and kind team overall");
  });

  it("refuses profanity, also when spelled around a filter, but not words that merely contain one", () => {
    const text = (value: string) => problems(schema, form({ review_text: value }), "review_text");
    expect(text("The manager is a complete asshole to everyone")).toEqual([guidelineMessages.profanity]);
    expect(text("Honestly a fuuuucking mess every single sprint")).toEqual([guidelineMessages.profanity]);
    expect(text("Total sh1t culture, avoid")).toEqual([guidelineMessages.profanity]);
    expect(guidelineMessages.profanity).toMatch(/no profanity/);
    expect(text("Our office in Scunthorpe had a great canteen")).toEqual([]);
    expect(text("We assessed class assignments and passed the audit")).toEqual([]);
  });
});

describe("the company review's layoffs date", () => {
  const layoffs = (value: unknown) => companyReviewSchema.safeParse(companyReviewForm({ recent_layoffs: value }));

  it("is optional", () => {
    expect(layoffs("").data?.recent_layoffs).toBeUndefined();
    expect(layoffs(undefined).data?.recent_layoffs).toBeUndefined();
    expect(layoffs(null).data?.recent_layoffs).toBeUndefined();
    expect(layoffs("2024-05-01").data?.recent_layoffs).toBe("2024-05-01");
  });

  it("refuses a future day, a day that does not exist and other shapes", () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    for (const refused of [
      tomorrow,
      "2999-01-01",
      "2024-02-30",
      "2023-02-29",
      "2024-13-01",
      "01/05/2024",
      "2024-5-1",
    ]) {
      expect(
        problems(companyReviewSchema, companyReviewForm({ recent_layoffs: refused }), "recent_layoffs"),
        refused,
      ).toEqual([m.layoffsDate]);
    }
    expect(layoffs("2024-02-29").success).toBe(true);
  });
});

describe("the company schema", () => {
  it("requires every company field, each with a message on that field", () => {
    const expected: Record<string, string> = {
      country: m.country,
      website: m.website,
      glassdoor_url: m.website,
      industry: m.industry,
    };
    for (const key of companyKeys) {
      expect(problems(companySchema, without(companyForm(), key), key), key).toEqual([expected[key] ?? m.required]);
      expect(problems(companySchema, companyForm({ [key]: "  " }), key), key).not.toEqual([]);
    }
  });

  it("normalises the website and review-site addresses", () => {
    const parsed = companySchema.parse(
      companyForm({ website: "acme.com", glassdoor_url: "www.glassdoor.com/Reviews/Acme", country: "de" }),
    );
    expect(parsed.website).toBe("https://acme.com/");
    expect(parsed.glassdoor_url).toBe("https://www.glassdoor.com/Reviews/Acme");
    expect(parsed.country).toBe("DE");
    expect(companySchema.parse(companyForm({ website: "http://acme.com" })).website).toBe("http://acme.com/");
  });

  it("accepts only http and https addresses", () => {
    for (const field of ["website", "glassdoor_url"]) {
      for (const refused of [
        "javascript:alert(1)",
        "ftp://acme.com",
        "data:text/html,hi",
        "https://user:pw@acme.com",
      ]) {
        expect(problems(companySchema, companyForm({ [field]: refused }), field), refused).toEqual([m.website]);
      }
    }
  });

  it("refuses an unknown country and a name on several lines", () => {
    expect(problems(companySchema, companyForm({ country: "XX" }), "country")).toEqual([m.country]);
    expect(problems(companySchema, companyForm({ name: "Acme\nInc" }), "name")).toEqual([m.singleLine]);
  });

  it("keeps names NFKC and free of invisible characters, and refuses one made of them only", () => {
    const parsed = companySchema.parse(
      companyForm({ name: "\u202E\uFF21cme\u200B GmbH\u2069", city: "Mu\u0308nchen\u200D" }),
    );
    expect(parsed.name).toBe("Acme GmbH");
    expect(parsed.city).toBe("München");
    for (const invisible of ["\u200B\u200B", "\u202E", "\u2066\u2069 \uFEFF"]) {
      expect(problems(companySchema, companyForm({ name: invisible }), "name"), JSON.stringify(invisible)).toEqual([
        m.invisibleOnly,
      ]);
    }
    expect(problems(companySchema, companyForm({ name: "Acme\u0000" }), "name")).toEqual([m.singleLine]);
  });
});

describe("the manager schema", () => {
  it("accepts a manager with direct reports, department optional", () => {
    const parsed = managerSchema.parse(managerForm({ department: "" }));
    expect(parsed.direct_reports).toBe(1);
    expect(parsed.department).toBeUndefined();
    expect(parsed.linkedin_url).toBe("https://linkedin.com/in/jane-doe");
  });

  it('refuses a manager without direct reports with "Manager has to have direct reports!"', () => {
    expect(problems(managerSchema, managerForm({ direct_reports: "No" }), "direct_reports")).toEqual([
      "Manager has to have direct reports!",
    ]);
    expect(problems(managerSchema, managerForm({ direct_reports: undefined }), "direct_reports")).toEqual([m.answer]);
  });

  it("accepts only LinkedIn addresses for the profile", () => {
    const linkedIn = (value: string) => managerSchema.safeParse(managerForm({ linkedin_url: value }));
    expect(linkedIn("https://www.linkedin.com/in/jane").data?.linkedin_url).toBe("https://www.linkedin.com/in/jane");
    expect(linkedIn("de.linkedin.com/in/jane").success).toBe(true);
    for (const refused of [
      "https://evil.com/linkedin.com",
      "notlinkedin.com/in/jane",
      "linkedin.com.evil.com/in/x",
      "javascript:alert(1)",
    ]) {
      expect(problems(managerSchema, managerForm({ linkedin_url: refused }), "linkedin_url"), refused).toEqual([
        m.linkedin,
      ]);
    }
  });

  it("requires the name, title and place fields", () => {
    for (const key of ["first_name", "last_name", "title", "city", "state"]) {
      expect(problems(managerSchema, without(managerForm(), key), key), key).toEqual([m.required]);
    }
  });
});

describe("hasNullValues", () => {
  it("finds a null value in a payload", () => {
    expect(hasNullValues(companyForm({ city: null }))).toBe(true);
    expect(hasNullValues(null)).toBe(true);
    expect(hasNullValues(companyForm())).toBe(false);
    expect(hasNullValues("text")).toBe(false);
  });
});

describe("text field lengths", () => {
  const fields = [
    ...(["name", "state", "city"] as const).map((key) => ({
      key,
      schema: companySchema,
      form: companyForm,
    })),
    ...(["first_name", "last_name", "title", "city", "state", "department"] as const).map((key) => ({
      key,
      schema: managerSchema,
      form: managerForm,
    })),
  ];

  it.each(fields)("takes $key up to the length limits.ts gives it, and no longer", ({ key, schema, form }) => {
    const longest = "x".repeat(fieldLengths[key]);

    expect(problems(schema, form({ [key]: longest }), key)).toEqual([]);
    expect(problems(schema, form({ [key]: `${longest}x` }), key)).toEqual([m.tooLong]);
  });
});

describe("industry", () => {
  it("takes a section of the fixed list by its letter or its title, and stores its title", () => {
    expect(companySchema.parse(companyForm({ industry: "J" })).industry).toBe("Information and communication");
    expect(companySchema.parse(companyForm({ industry: "Education" })).industry).toBe("Education");
  });

  it.each(["Software", "j", "", " J", "Z", 10, null])("refuses %j with the message that names the list", (industry) => {
    expect(problems(companySchema, companyForm({ industry }), "industry")).toEqual([m.industry]);
  });
});
