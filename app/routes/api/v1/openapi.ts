import { readOnlyAction } from "#app/http/api.server.ts";
import { publicUrl } from "#app/domain/auth.server.ts";
import { openApiDocument } from "#app/http/openapi.server.ts";

let document: string | undefined;

/** GET /api/v1/openapi.json: the API's OpenAPI 3.1 document. */
export function loader() {
  document ??= JSON.stringify(openApiDocument(publicUrl()));
  return new Response(document, {
    headers: {
      "Content-Type": "application/json",
      "Cache-Control": "public, max-age=300",
      "Access-Control-Allow-Origin": "*",
    },
  });
}

export const action = readOnlyAction;
