import type { Kysely } from "kysely";
import type { Database, SubjectKind } from "#app/db/schema.ts";
import { compareLimits } from "#app/lib/limits.ts";
import { compareMessages } from "#app/lib/messages.ts";
import { parseId } from "#app/lib/params.ts";
import { findCompany } from "./companies.server.ts";
import { findManager } from "./managers.server.ts";
import type { CompanyProfile, ManagerProfile } from "./public-shapes.server.ts";

/**
 * A comparison of 2 to 4 companies or 2 to 4 managers, named in a query by repeated `company=<id>` or `manager=<id>`
 * (the order kept). Every refusal says what to change; nothing here reads more than the named profiles.
 */

export type CompareSelection = { kind: SubjectKind; ids: number[] };

export type Comparison = { kind: "company"; items: CompanyProfile[] } | { kind: "manager"; items: ManagerProfile[] };

/** What a query asks to compare, or why it cannot be compared: the message, and whether the ids merely do not exist. */
export type CompareQuery =
  { ok: true; selection: CompareSelection } | { ok: false; status: 400; message: string; selection: CompareSelection };

/**
 * Reads `company` and `manager` from a query. `minimum` false accepts fewer than 2 (the compare page starts from one
 * subject and offers to add more); too many, a bad id, a repeat or both kinds are always refused.
 */
export function parseCompareQuery(params: URLSearchParams, { minimum = true } = {}): CompareQuery {
  const companies = params.getAll("company");
  const managers = params.getAll("manager");
  const kind: SubjectKind = companies.length === 0 && managers.length > 0 ? "manager" : "company";
  const raw = kind === "company" ? companies : managers;
  const ids = raw.map((value) => parseId(value));
  const selection = { kind, ids: ids.filter((id): id is number => id !== undefined) };
  const refuse = (message: string): CompareQuery => ({ ok: false, status: 400, message, selection });
  if (companies.length > 0 && managers.length > 0) return refuse(compareMessages.mixed);
  const bad = raw.find((_, index) => ids[index] === undefined);
  if (bad !== undefined) return refuse(compareMessages.badId(bad.slice(0, 40)));
  if (new Set(selection.ids).size !== selection.ids.length) return refuse(compareMessages.repeated);
  if (selection.ids.length > compareLimits.max) return refuse(compareMessages.tooMany(compareLimits.max));
  if (minimum && selection.ids.length < compareLimits.min) return refuse(compareMessages.tooFew(compareLimits.min));
  return { ok: true, selection };
}

/** The profiles of a selection, in its order; `missing` names the first id with no such subject. */
export async function loadComparison(
  db: Kysely<Database>,
  selection: CompareSelection,
): Promise<{ comparison: Comparison; missing?: number }> {
  if (selection.kind === "company") {
    const found = await Promise.all(selection.ids.map((id) => findCompany(db, id)));
    const missing = selection.ids.find((_, index) => !found[index]);
    return { comparison: { kind: "company", items: found.filter((item) => item !== undefined) }, missing };
  }
  const found = await Promise.all(selection.ids.map((id) => findManager(db, id)));
  const missing = selection.ids.find((_, index) => !found[index]);
  return { comparison: { kind: "manager", items: found.filter((item) => item !== undefined) }, missing };
}
