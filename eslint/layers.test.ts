import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

// The project's own configuration, so the test proves what `npm run lint` enforces.
const eslint = new ESLint({ cwd: path.resolve(import.meta.dirname, "..") });

async function reported(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport const used = [x];\n`, { filePath: file });
  return result!.messages.filter((message) => message.ruleId === "no-restricted-imports").map((m) => m.message);
}

describe("layers of app/", () => {
  it.each([
    ["app/lib/x.ts", `import { x } from "#app/domain/companies.server.ts";`],
    ["app/lib/x.ts", `import { x } from "#app/db/database.server.ts";`],
    ["app/lib/x.ts", `import type { x } from "#app/http/session.server.ts";`],
    ["app/lib/x.ts", `import { x } from "#server/app.ts";`],
    ["app/db/x.ts", `import { x } from "#app/domain/contributions.server.ts";`],
    ["app/db/x.ts", `import { x } from "../lib/ratings.ts";`],
    ["app/db/migrations/x.ts", `import { x } from "../../domain/companies.server.ts";`],
    ["app/domain/x.ts", `import { x } from "#app/http/session.server.ts";`],
    ["app/domain/x.ts", `import { x } from "#app/routes/company.tsx";`],
    ["app/http/x.ts", `import { x } from "#app/routes/company.tsx";`],
    ["app/http/x.ts", `import { x } from "#app/components/review-card.tsx";`],
    ["app/components/x.tsx", `import { x } from "#app/domain/reviews.server.ts";`],
    ["app/components/x.tsx", `import { x } from "#app/root.tsx";`],
    ["app/components/x.tsx", `import { x } from "#app/http/session.server.ts";`],
    ["app/components/x.tsx", `import { x } from "#app/lib/env.server.ts";`],
  ])("%s: a wrong-way import is reported (%s)", async (file, code) => {
    expect(await reported(file, code)).not.toEqual([]);
  });

  it.each([
    ["app/lib/x.ts", `import { x } from "#app/lib/limits.ts";`],
    ["app/lib/x.ts", `import { x } from "./limits.ts";`],
    ["app/db/x.ts", `import { x } from "#app/lib/ratings.ts";`],
    ["app/db/migrations/x.ts", `import { x } from "../dialect.ts";`],
    ["app/domain/x.ts", `import { x } from "#app/db/schema.ts";`],
    ["app/domain/x.ts", `import { x } from "#app/lib/messages.ts";`],
    ["app/http/x.ts", `import { x } from "#app/domain/companies.server.ts";`],
    ["app/http/x.ts", `import { x } from "#app/db/database.server.ts";`],
    ["app/components/x.tsx", `import { x } from "#app/lib/paths.ts";`],
    ["app/components/x.tsx", `import type { x } from "#app/domain/reviews.server.ts";`],
    ["app/components/x.tsx", `import type { x } from "#app/root.tsx";`],
    ["app/routes/x.tsx", `import { x } from "#app/http/session.server.ts";`],
    ["app/domain/x.test.ts", `import { x } from "#tests/support/test-database.ts";`],
  ])("%s: an import down the layers is allowed (%s)", async (file, code) => {
    expect(await reported(file, code)).toEqual([]);
  });
});
