import type { Kysely } from "kysely";

/**
 * Industries from a fixed list: each company gets `industry_section`, the letter of its ISIC Rev. 4 section
 * (docs/decisions/0025-industries-and-review-site-address.md). New companies store the section's title in
 * `industry` and its letter here. Companies added before keep the industry as it was typed, unchanged (nothing
 * stored is rewritten or lost); those whose text names a section, or a common industry that belongs to one, get
 * its letter, the others none. Also an index for the cities already known in a country (the forms suggest them).
 */

// Frozen as written (a migration imports no application code): the sections' titles and the common names of
// industries that the demo data and people used, each with the section it belongs to, matched case-insensitively.
const sections: Record<string, string> = {
  A: "Agriculture, forestry and fishing",
  B: "Mining and quarrying",
  C: "Manufacturing",
  D: "Electricity, gas, steam and air conditioning supply",
  E: "Water supply; sewerage, waste management and remediation activities",
  F: "Construction",
  G: "Wholesale and retail trade; repair of motor vehicles and motorcycles",
  H: "Transportation and storage",
  I: "Accommodation and food service activities",
  J: "Information and communication",
  K: "Financial and insurance activities",
  L: "Real estate activities",
  M: "Professional, scientific and technical activities",
  N: "Administrative and support service activities",
  O: "Public administration and defence; compulsory social security",
  P: "Education",
  Q: "Human health and social work activities",
  R: "Arts, entertainment and recreation",
  S: "Other service activities",
  T: "Activities of households as employers; undifferentiated goods- and services-producing activities of households for own use",
  U: "Activities of extraterritorial organizations and bodies",
};

const commonNames: Record<string, string> = {
  agriculture: "A",
  farming: "A",
  mining: "B",
  "oil and gas": "B",
  manufacturing: "C",
  automotive: "C",
  "food and beverage": "C",
  pharmaceuticals: "C",
  energy: "D",
  utilities: "D",
  construction: "F",
  retail: "G",
  wholesale: "G",
  "e-commerce": "G",
  logistics: "H",
  transportation: "H",
  transport: "H",
  hospitality: "I",
  restaurants: "I",
  software: "J",
  technology: "J",
  "information technology": "J",
  it: "J",
  telecommunications: "J",
  media: "J",
  publishing: "J",
  banking: "K",
  finance: "K",
  "financial services": "K",
  insurance: "K",
  "real estate": "L",
  consulting: "M",
  "legal services": "M",
  accounting: "M",
  biotechnology: "M",
  research: "M",
  advertising: "M",
  staffing: "N",
  "public sector": "O",
  government: "O",
  education: "P",
  healthcare: "Q",
  "health care": "Q",
  "social work": "Q",
  entertainment: "R",
  "non-profit": "S",
  nonprofit: "S",
};

export function sectionOfIndustry(text: string): string | undefined {
  const key = text.trim().toLowerCase();
  const byTitle = Object.entries(sections).find(([, title]) => title.toLowerCase() === key);
  return byTitle?.[0] ?? commonNames[key];
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("companies").addColumn("industry_section", "text").execute();
  const stored = await db.selectFrom("companies").select("industry").distinct().execute();
  for (const { industry } of stored as Array<{ industry: string }>) {
    const section = sectionOfIndustry(industry);
    if (!section) continue;
    await db.updateTable("companies").set({ industry_section: section }).where("industry", "=", industry).execute();
  }
  await db.schema.createIndex("companies_country_city").on("companies").columns(["country", "city", "state"]).execute();
  await db.schema.createIndex("managers_country_city").on("managers").columns(["country", "city", "state"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("managers_country_city").execute();
  await db.schema.dropIndex("companies_country_city").execute();
  await db.schema.alterTable("companies").dropColumn("industry_section").execute();
}
