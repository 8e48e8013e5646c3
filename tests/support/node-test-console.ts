// Loaded into every node --test file (package.json: --import): a test that writes to console.error without
// expecting it fails (tests/support/console-errors.ts).
import { afterEach, beforeEach } from "node:test";
import { assertNoConsoleErrors, watchConsoleErrors } from "./console-errors.ts";

beforeEach(watchConsoleErrors);
afterEach(assertNoConsoleErrors);
