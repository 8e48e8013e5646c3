// PostgreSQL must be reachable (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test): no silent skip.
import { describeBrowsing } from "./browsing-suite.ts";

describeBrowsing("postgres");
