import { Link } from "react-router";
import type { Route } from "./+types/api-reference.ts";
import { publicUrl } from "#app/domain/auth.server.ts";
import { messages } from "#app/lib/messages.ts";
import { openApiDocument } from "#app/http/openapi.server.ts";

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  $ref?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  description?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  pattern?: string;
};

type Operation = {
  summary?: string;
  description?: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; description?: string }>;
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: JsonSchema }> }>;
  security?: unknown[];
};

export function loader() {
  const document = openApiDocument(publicUrl());
  return {
    info: document.info,
    paths: document.paths as unknown as Record<string, Record<string, Operation>>,
    schemas: document.components.schemas as unknown as Record<string, JsonSchema>,
  };
}

function typeOf(schema: JsonSchema | undefined): string {
  if (!schema) return "any";
  if (schema.$ref) return schema.$ref.split("/").at(-1) ?? "object";
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  if (schema.anyOf ?? schema.oneOf) return (schema.anyOf ?? schema.oneOf ?? []).map(typeOf).join(" | ");
  if (schema.type === "array") return `${typeOf(schema.items)}[]`;
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : (schema.type ?? "object");
  const limits = [
    schema.minimum !== undefined ? `≥ ${schema.minimum}` : null,
    schema.maximum !== undefined ? `≤ ${schema.maximum}` : null,
    schema.maxLength !== undefined ? `max ${schema.maxLength} chars` : null,
  ].filter(Boolean);
  return limits.length ? `${type} (${limits.join(", ")})` : type;
}

function SchemaTable({ schema }: { schema: JsonSchema }) {
  const properties = Object.entries(schema.properties ?? {});
  if (properties.length === 0) return <p className="muted">{typeOf(schema)}</p>;
  return (
    <table className="schema-table">
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Type</th>
          <th scope="col">Required</th>
        </tr>
      </thead>
      <tbody>
        {properties.map(([name, property]) => (
          <tr key={name}>
            <td>
              <code>{name}</code>
            </td>
            <td>{typeOf(property)}</td>
            <td>{schema.required?.includes(name) ? "yes" : "no"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export default function ApiReferencePage({ loaderData }: Route.ComponentProps) {
  const { info, paths, schemas } = loaderData;
  return (
    <article className="page prose api-reference">
      <title>{`API reference · ${messages.siteName}`}</title>
      <h1>{info.title}</h1>
      <p>{info.description}</p>
      <p>
        Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1). Errors are{" "}
        <code>application/problem+json</code> (RFC 9457). Use it kindly: reads are limited to 600 a minute per client,
        writes to 60 an hour, and reviews (as new companies and managers) count against the same 30 an hour as the
        site's forms; see the <code>RateLimit-*</code> headers. Please follow the{" "}
        <Link to="/guidelines">posting guidelines</Link>.
      </p>
      <h2>Endpoints</h2>
      {Object.entries(paths).map(([path, operations]) =>
        Object.entries(operations).map(([method, operation]) => {
          const requestSchema = operation.requestBody?.content["application/json"]?.schema;
          return (
            <section key={`${method} ${path}`} className="card endpoint" aria-labelledby={`${method}-${path}`}>
              <h3 id={`${method}-${path}`}>
                <span className={`method method-${method}`}>{method.toUpperCase()}</span> <code>{path}</code>
              </h3>
              <p>{operation.summary}</p>
              {operation.description ? <p>{operation.description}</p> : null}
              {operation.security ? <p className="muted">Needs an access token or the session cookie.</p> : null}
              {operation.parameters?.length ? (
                <ul>
                  {operation.parameters.map((parameter) => (
                    <li key={parameter.name}>
                      <code>{parameter.name}</code> ({parameter.in}
                      {parameter.required ? ", required" : ""})
                      {parameter.description ? `: ${parameter.description}` : ""}
                    </li>
                  ))}
                </ul>
              ) : null}
              {requestSchema ? <p>Body: {typeOf(requestSchema)}</p> : null}
              <p>
                Responses:{" "}
                {Object.entries(operation.responses)
                  .map(([status, response]) => `${status} ${response.description}`)
                  .join(" · ")}
              </p>
            </section>
          );
        }),
      )}
      <h2>Schemas</h2>
      {Object.entries(schemas).map(([name, schema]) => (
        <section key={name} aria-labelledby={`schema-${name}`}>
          <h3 id={`schema-${name}`}>{name}</h3>
          <SchemaTable schema={schema} />
        </section>
      ))}
    </article>
  );
}
