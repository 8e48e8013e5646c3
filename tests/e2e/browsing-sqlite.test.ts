import { describeBrowsing } from "./browsing-suite.ts";

describeBrowsing("sqlite");
