import assert from "node:assert/strict";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";

/**
 * Holds the JSON API's answers to its own OpenAPI document (GET /api/v1/openapi.json): the status is documented for
 * the path and method, the content type is the documented one, and the body validates against the documented
 * schema (JSON Schema 2020-12, with the document's components registered so that their $refs resolve).
 *
 * Statuses that apply everywhere without being listed on every operation:
 * - 304 Not Modified: any documented GET asked with If-None-Match (no body).
 * - 405 Method Not Allowed: any method that is not an operation of a documented path; the body must still be a
 *   Problem and Allow must list the methods that are.
 * - OPTIONS: a CORS preflight, answered 204 without a body (tests check its headers themselves).
 * - HEAD: as the documented GET, without a body.
 * Any address under /api/v1 that the document does not name must be the API's JSON 404.
 * Everything else, 429 included, must be documented on the operation itself.
 */

type JsonSchema = Record<string, unknown>;
type MediaType = { schema?: JsonSchema };
type ResponseObject = { description: string; content?: Record<string, MediaType> };
type OperationObject = {
  responses: Record<string, ResponseObject>;
  requestBody?: { content: Record<string, MediaType> };
};
export type OpenApiDocument = {
  openapi: string;
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, JsonSchema> };
};

export type Checked = { status: number; body: unknown; text: string; contentType: string };

const documentId = "https://candor.invalid/api/v1/openapi.json";
const methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Points "#/components/..." references at the registered document, so schemas compile anywhere. */
function absoluteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(absoluteRefs);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, entry]) => [
        key,
        key === "$ref" && typeof entry === "string" && entry.startsWith("#/")
          ? `${documentId}${entry}`
          : absoluteRefs(entry),
      ]),
    );
  }
  return value;
}

export class ApiContract {
  readonly document: OpenApiDocument;
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: Array<{ template: string; pattern: RegExp }>;
  /** "GET /api/v1/companies" → statuses seen; 405s under the method that was refused. */
  private readonly seen = new Map<string, Set<string>>();
  private checkedCount = 0;

  constructor(document: OpenApiDocument) {
    assert.equal(document.openapi.slice(0, 4), "3.1.", "an OpenAPI 3.1 document");
    this.document = document;
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    this.ajv.addSchema({ $id: documentId, components: absoluteRefs(document.components) });
    // Literal segments before parameters: /companies/suggestions is not /companies/{companyId}.
    this.templates = Object.keys(document.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "([^/]+)")}$`),
        literal: template.replace(/\{[^}]+\}/g, "").length,
      }))
      .sort((a, b) => b.literal - a.literal);
  }

  static async load(baseURL: string): Promise<ApiContract> {
    const response = await fetch(new URL("/api/v1/openapi.json", baseURL));
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^application\/json\b/);
    return new ApiContract((await response.json()) as OpenApiDocument);
  }

  /** The documented path template a request path falls under (a trailing slash is the same path), or undefined. */
  template(pathname: string): string | undefined {
    const path = pathname.length > 1 ? pathname.replace(/\/$/, "") : pathname;
    return this.templates.find(({ pattern }) => pattern.test(path))?.template;
  }

  operation(method: string, template: string): OperationObject | undefined {
    return this.document.paths[template]?.[method.toLowerCase()];
  }

  /** Every documented operation, as "METHOD /path". */
  operations(): string[] {
    return Object.entries(this.document.paths).flatMap(([template, item]) =>
      Object.keys(item)
        .filter((method) => methods.includes(method))
        .map((method) => `${method.toUpperCase()} ${template}`),
    );
  }

  private validator(key: string, schema: JsonSchema): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(absoluteRefs(schema) as JsonSchema);
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** Asserts that `body` is a valid request body of the operation (as documented for application/json). */
  assertRequestBody(method: string, template: string, body: unknown): void {
    const schema = this.operation(method, template)?.requestBody?.content["application/json"]?.schema;
    assert.ok(schema, `${method} ${template} documents no JSON request body`);
    const validate = this.validator(`request ${method} ${template}`, schema);
    assert.ok(validate(body), `request body of ${method} ${template}: ${this.ajv.errorsText(validate.errors)}`);
  }

  private record(key: string, status: string): void {
    let statuses = this.seen.get(key);
    if (!statuses) {
      statuses = new Set();
      this.seen.set(key, statuses);
    }
    statuses.add(status);
  }

  /**
   * Reads the response and asserts that it is what the document promises; returns the parsed body (undefined when
   * there is none). `conditional` says the request carried If-None-Match, which makes 304 a valid answer to a GET.
   */
  async check(method: string, url: URL, response: Response, conditional = false): Promise<Checked> {
    this.checkedCount += 1;
    const upper = method.toUpperCase();
    const where = `${upper} ${url.pathname}${url.search.slice(0, 120)}`;
    const text = upper === "HEAD" ? "" : await response.text();
    const contentType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim();
    const status = response.status;
    const parse = (): unknown => {
      try {
        return JSON.parse(text);
      } catch {
        assert.fail(`${where} answered ${status} with a body that is not JSON: ${text.slice(0, 200)}`);
      }
    };
    const problem = (): unknown => {
      assert.equal(contentType, "application/problem+json", `${where} answered ${status} as ${contentType}`);
      if (upper === "HEAD") return undefined;
      const body = parse() as { status?: unknown };
      const validate = this.validator("Problem", { $ref: "#/components/schemas/Problem" });
      assert.ok(validate(body), `${where} ${status}: not a Problem: ${this.ajv.errorsText(validate.errors)}`);
      assert.equal(body.status, status, `${where}: the problem's status is the response's`);
      return body;
    };

    const template = this.template(url.pathname);
    if (!template) {
      // Not a documented path: only the API's own 404 may answer under /api/v1.
      assert.equal(status, 404, `${where} is not documented but answered ${status}`);
      this.record(`${upper} (undocumented path)`, "404");
      return { status, body: problem(), text, contentType };
    }
    if (upper === "OPTIONS" && status === 204 && !this.operation("OPTIONS", template)) {
      assert.equal(text, "", `${where}: a preflight with a body`);
      this.record(`OPTIONS ${template}`, "204");
      return { status, body: undefined, text, contentType };
    }
    const operation = this.operation(upper === "HEAD" ? "GET" : upper, template);
    if (!operation) {
      assert.equal(status, 405, `${upper} ${template} is not an operation of the document but answered ${status}`);
      const allow = (response.headers.get("allow") ?? "").split(/,\s*/).filter(Boolean);
      assert.ok(allow.length > 0, `${where}: 405 without Allow`);
      for (const allowed of allow) {
        if (allowed === "HEAD" || allowed === "OPTIONS") continue;
        assert.ok(this.operation(allowed, template), `${where}: Allow names ${allowed}, which is not documented`);
      }
      for (const documentedMethod of Object.keys(this.document.paths[template]!).filter((key) =>
        methods.includes(key),
      )) {
        const name = documentedMethod.toUpperCase();
        assert.ok(allow.includes(name), `${where}: Allow (${allow.join(", ")}) leaves out ${name}`);
      }
      this.record(`${upper} ${template}`, "405");
      return { status, body: problem(), text, contentType };
    }
    this.record(`${upper} ${template}`, String(status));
    if (status === 304) {
      assert.ok(upper === "GET" || upper === "HEAD", `${where}: 304 to a ${upper}`);
      assert.ok(conditional, `${where}: 304 to a request without If-None-Match`);
      assert.equal(text, "", `${where}: 304 with a body`);
      return { status, body: undefined, text, contentType };
    }
    const documented = operation.responses[String(status)];
    assert.ok(
      documented,
      `${where} answered ${status}, which ${upper} ${template} does not document (documented: ${Object.keys(operation.responses).join(", ")}): ${text.slice(0, 300)}`,
    );
    if (!documented.content) {
      assert.equal(text, "", `${where}: ${status} documents no body but has one`);
      return { status, body: undefined, text, contentType };
    }
    const media = documented.content[contentType];
    assert.ok(
      media,
      `${where} answered ${status} as "${contentType}"; documented: ${Object.keys(documented.content).join(", ")}`,
    );
    if (contentType === "application/problem+json") return { status, body: problem(), text, contentType };
    const body = upper === "HEAD" ? undefined : parse();
    if (media.schema && upper !== "HEAD") {
      const validate = this.validator(`${upper} ${template} ${status} ${contentType}`, media.schema);
      assert.ok(
        validate(body),
        `${where} ${status}: the body does not match the document: ${this.ajv.errorsText(validate.errors)}\n${text.slice(0, 500)}`,
      );
    }
    return { status, body, text, contentType };
  }

  /** Documented operations that no checked response exercised. */
  unexercised(): string[] {
    return this.operations().filter((operation) => {
      const statuses = this.seen.get(operation);
      return !statuses || [...statuses].every((status) => status === "405");
    });
  }

  /** One line per operation: the statuses seen, and the documented ones not seen. */
  coverage(): string {
    const lines = [`contract: ${this.checkedCount} responses checked against the OpenAPI document`];
    for (const key of this.operations()) {
      const [method, template] = key.split(" ") as [string, string];
      const documented = Object.keys(this.operation(method, template)!.responses);
      const seen = [...(this.seen.get(key) ?? [])].sort();
      const missing = documented.filter((status) => !seen.includes(status));
      lines.push(
        `  ${key.padEnd(48)} seen ${seen.join(" ") || "-"}${missing.length > 0 ? `   (documented, not seen: ${missing.join(" ")})` : ""}`,
      );
    }
    for (const [key, statuses] of this.seen) {
      if (!this.operations().includes(key)) lines.push(`  ${key.padEnd(48)} seen ${[...statuses].sort().join(" ")}`);
    }
    return lines.join("\n");
  }
}
