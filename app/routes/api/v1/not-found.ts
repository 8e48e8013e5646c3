import { problem } from "#app/http/problem.server.ts";

/** Any other address under /api/v1 is a JSON 404, not the HTML page. */
export function loader() {
  return problem(404, "There is no such API endpoint. See /api/v1/openapi.json.");
}

export const action = loader;
