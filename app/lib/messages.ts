import { maxTagsPerReview, reviewTextLength } from "./limits.ts";

/**
 * The spec's user-facing texts (sections 2 and 8), each written once so a grep finds it and tests can import it.
 */
export const messages = {
  siteName: "Candor",
  tagline: "Transparency in Leadership",
  noCompanyFound: "No Company Found",
  noManagerFound: "No Manager Found",
  // A search reads a bounded number of names per page (decision 0033): a page can end before it found any.
  noMatchYet: "No match in the names searched so far; more names remain.",
  noManagerProfileFound: "No Manager Profile Found",
  noManagerDataFound: "No manager data found.",
  searchAgain: "Search again?",
  noCompanyReviews: "No Reviews - sign in to add one",
  noManagerReviews: "No reviews - sign in to add one",
  noReviewsYet: "No reviews yet.",
  nothingHere: "Nothing here - sign in to change that",
  managerMissingPrompt: "If you don't see your manager, you can",
  addOneHere: "Add one here",
  unexpectedError: "Unexpected Application Error!",
  /** One name per action, wherever it is offered (docs/decisions/0024-one-name-per-action.md). */
  signIn: "Sign In",
  signOut: "Sign out",
  signUp: "Sign up",
  /** Shown to every reader; signed out, the form asks to sign in first and comes back (decision 0022). */
  writeReview: "Write a review",
  /** The same link for a signed-in reader, by the product's own names for it: a company's, then a manager's. */
  addReview: "Add review",
  addManagerReview: "Add a review",
  countryPlaceholder: "Country",
  learnMore: "Learn more",
  /** Read by screen readers and search engines after "Learn more", which alone does not say where it leads. */
  learnMoreTopic: " about our posting guidelines",
  dataOwnership: "Submitted data becomes the property of the site owner.",
  ipLogged: "IP addresses are logged for abuse control.",
  demoData: "Demo data",
} as const;

/** The headline and distributions of a company or manager page (decision 0021). */
export const summaryMessages = {
  summary: "Summary",
  reviews: "Reviews",
  noRatingsYet: "No ratings yet",
  basedOn: (count: number) => `based on ${count.toLocaleString("en")} ${count === 1 ? "review" : "reviews"}`,
  interval: (low: string, high: string) => `95% confidence interval ${low} to ${high}`,
  noInterval: "Too few reviews for a confidence interval",
  allRatings: "All ratings and tags",
  ratingsInDetail: "Ratings in detail",
  overallDistribution: "Reviews by overall score",
  ratingColumn: "Rating",
  reviewsColumn: "Reviews",
  distributionOf: (group: string) => `How each ${group.toLowerCase()} criterion was rated`,
  topTags: "Most mentioned tags",
  filterReviews: "Sort and filter reviews",
  sortBy: "Sort by",
  sorts: { newest: "Newest", highest: "Highest rated", lowest: "Lowest rated", helpful: "Most helpful" },
  overallScore: "Overall score",
  tag: "Tag",
  any: "Any",
  words: "Words in the review",
  showReviews: "Show reviews",
  allReviews: "All reviews, newest first",
  noMatch: "No reviews match these choices.",
} as const;

/** Adding companies, managers and reviews. */
export const contributionMessages = {
  rateEvery: "Choose a rating from 1 (Awful) to 5 (Awesome).",
  answer: "Answer Yes or No.",
  chooseTags: `Choose at least one tag and at most ${maxTagsPerReview}.`,
  unknownTag: "Choose tags from the list.",
  textTooShort: `Write more than ${reviewTextLength.min - 1} characters.`,
  textTooLong: `Write at most ${reviewTextLength.max} characters.`,
  required: "Fill in this field.",
  tooLong: "This is too long.",
  singleLine: "Keep this on one line.",
  controlCharacters: "Remove the invisible control characters from the text.",
  invisibleOnly: "Use visible letters: this has only invisible characters.",
  country: "Choose a country from the list.",
  industry: "Choose an industry from the list (an ISIC section, by its letter or its title).",
  website: "Enter a web address such as acme.com or https://www.acme.com (http or https only).",
  linkedin: "Enter a LinkedIn profile address such as linkedin.com/in/jane-doe.",
  layoffsDate: "Enter the layoffs date as a day, no later than today.",
  companyIdRequired: "Company ID is required to add a rating",
  managerIdRequired: "Manager ID is required to add a rating",
  payloadNulls: "Payload contains null or undefined values.",
  companyExists: "This company already exists.",
  managerExists: "Duplicate entry, Already Exists ",
  directReports: "Manager has to have direct reports!",
  mustSignIn: "You must be logged in to submit a review.",
  alreadyReviewed: "You have already reviewed this manager.",
  noCompany: "Choose a company from the suggestions, or add a new one.",
  somethingWrong: "Something went wrong, please try again",
  unavailable: "Candor is briefly unavailable. Please try again in a few seconds.",
  network: "Check your network connection",
} as const;

/**
 * The spec's error catalogue for data that could not be read or written: "{what}: {message}". The message is always
 * one of ours (unavailable or something went wrong), never an internal error's own text (decision 0040).
 */
export const failureMessages = {
  companies: "Error loading companies",
  managers: "Error loading managers",
  suggestions: "Error loading suggestions",
  search: "Error searching companies",
  insert: "Error inserting data",
  signin: "Error context; signin",
} as const;

/** Helpful votes (docs/decisions/0016-helpful-votes-with-a-key-only-the-account-holds.md). */
export const voteMessages = {
  count: (count: number) => `${count.toLocaleString("en")} found this helpful`,
  vote: "Helpful",
  voteHint: "Mark this review as helpful",
  unvote: "Remove my vote",
  signInToVote: "Sign in to vote",
  fromCard: "Votes are cast with the Helpful button under each review.",
  voted: "Thank you: your vote is counted.",
  unvoted: "Your vote is removed.",
  alreadyVoted: "You have already marked this review as helpful.",
  notVoted: "You have not marked this review as helpful.",
  reviewNotFound: "This review does not exist or is no longer shown.",
  keyMissing: "To vote, sign out and sign in again: your vote key is made from your password when you sign in.",
  keyHeaderMissing:
    "Send this account's vote_key, as the password grant answered it, in the Candor-Account-Key header: votes and reviews are counted under it.",
} as const;

/** A review sent without the account's own key (docs/decisions/0046-reviews-wait-under-a-key-only-the-author-holds.md). */
export const accountKeyMessages = {
  formMissing:
    "To send a review, sign out and sign in again: your account key, which keeps your review apart from your account, is made from your password when you sign in.",
  headerMissing: voteMessages.keyHeaderMissing,
} as const;

/** Toasts after a redirect, shown for 3 seconds. */
export const toastTexts = {
  "signed-in": "You are signed in",
  "signed-out": "You are signed out",
  "company-added": "Company added successfully!",
  "company-reviewed": "Thank you for your submission!",
  "manager-reviewed": "Manager Review added successfully!",
  voted: voteMessages.voted,
  unvoted: voteMessages.unvoted,
} as const;

/** The review's one-time key, shown once after a submission (it is stored only as a hash). */
export const reviewKeyTexts = {
  title: "Your review key",
  keep: "Keep it somewhere safe: it is shown only this once, and we keep no copy we could show again. With it you can appeal if your review is removed, or withdraw the review, on the",
  page: "review key page",
  after:
    ", without signing in. Whoever holds the key can do the same, and it shows that you wrote the review: if that worries you, do not keep it.",
} as const;

/** What a submission waits for before it appears (docs/decisions/0013-publication-in-sealed-batches.md). */
export type PublicationNoteKind = "review" | "company" | "manager" | "new-manager";

/** "within about an hour": the longest wait for the next run, each wait being at most 1.5 × the interval. */
export function publicationWait(intervalSeconds: number): string {
  const longest = intervalSeconds * 1.5;
  if (longest < 90) return "within about a minute";
  if (longest < 30 * 60) return `within about ${Math.ceil(longest / 60 / 5) * 5} minutes`;
  const hours = Math.max(1, Math.round(longest / 3600));
  return hours === 1 ? "within about an hour" : `within about ${hours} hours`;
}

/** The note beside the success text: when the submission will appear, and why it waits. */
export function publicationNote(
  kind: PublicationNoteKind,
  settings: { intervalSeconds: number; managerMinReviews: number },
): string {
  const wait = publicationWait(settings.intervalSeconds);
  const group = `at least ${settings.managerMinReviews} reviews of this manager are waiting`;
  const when = {
    review: `Your review will appear with the next publication, ${wait}.`,
    company: `The company and your review will appear with the next publication, ${wait}.`,
    manager: `Your review will appear with the first publication after ${group}.`,
    "new-manager": `The manager will appear with the next publication, ${wait}; your review with the first publication after ${group}.`,
  }[kind];
  const why =
    kind === "manager" || kind === "new-manager"
      ? "Reviews are published in shuffled batches dated only by the month, and a manager's reviews only in groups, so nobody, not even the people who run this site, can tell which review is yours or when you wrote it."
      : "Reviews are published in shuffled batches dated only by the month, so nobody, not even the people who run this site, can tell which review is yours or when you wrote it.";
  return `${when} ${why}`;
}

/** The badge of a review sent with a verification token (docs/decisions/0030-blind-signed-verification-tokens.md). */
export const verifiedBadge = (domain: string) => `Verified: works at ${domain}`;

/** Trends and comparisons with peers on company and manager pages, and the compare page. */
export const trendMessages = {
  heading: "Trend",
  chartTitle: "Overall score by month",
  tableCaption: "Mean score by month",
  criteriaSummary: "Each criterion by month",
  monthColumn: "Month",
  reviewsColumn: "Reviews",
  overallColumn: "Overall",
  rule: (minimum: number) =>
    `Only months with at least ${minimum} reviews are shown, so no point stands for a few people.`,
  none: (minimum: number) => `No month has ${minimum} reviews yet.`,
  describe: (first: string, firstValue: string, last: string, lastValue: string, months: number) =>
    months === 1
      ? `${first}: ${firstValue} of 5.`
      : `${months} months from ${first} (${firstValue} of 5) to ${last} (${lastValue} of 5).`,
};

export const peerMessages = {
  heading: "Compared with others",
  betterThan: (percent: number, kind: "company" | "manager", group: string) =>
    `Better than ${percent}% of ${kind === "company" ? "companies" : "managers"} in ${group}`,
  notRanked: (minimum: number) => `Ranked once it has ${minimum} reviews.`,
  groupAverage: (group: string) => `Average in ${group}`,
  thisOne: { company: "This company", manager: "This manager" },
  criterionColumn: "Criterion",
  betterThanColumn: "Better than",
  basis: (count: number, kind: "company" | "manager", minimum: number) =>
    `Among ${count.toLocaleString("en")} ${kind === "company" ? "companies" : "managers"} with at least ${minimum} reviews; recomputed regularly.`,
  none: "Not enough rated peers to compare with yet.",
};

export const compareMessages = {
  title: "Compare",
  add: "Add to compare",
  intro: (min: number, max: number) => `Set ${min} to ${max} companies, or ${min} to ${max} managers, side by side.`,
  tooFew: (min: number) => `Choose at least ${min} to compare.`,
  tooMany: (max: number) => `Compare at most ${max} at a time.`,
  mixed: "Compare companies with companies, or managers with managers, not both.",
  badId: (value: string) => `"${value}" is not a company or manager number.`,
  notFound: (kind: "company" | "manager", id: number) => `There is no ${kind} ${id}.`,
  repeated: "Each one can be compared once.",
  findLabel: { company: "Find a company to add", manager: "Find a manager to add" },
  countryLabel: "Country",
  nameLabel: "Name",
  kindLegend: "What to compare",
  kinds: { company: "Companies", manager: "Managers" },
  find: "Find",
  remove: "Remove",
  addThis: "Add",
  noMatch: "No match in this country.",
  criterion: "Criterion",
  overall: "Overall (mean)",
  reviews: "Reviews",
  none: "–",
};

/** Feeds of new reviews (Atom and JSON Feed) and the links that offer them. */
export const feedMessages = {
  title: (name: string) => `Candor: new reviews of ${name}`,
  placeTitle: (name: string) => `Candor: new reviews in ${name}`,
  subtitle: "Reviews appear here when a batch is published; each is dated to its month.",
  entryTitle: (score: number, name: string) => `${score} of 5: ${name}`,
  follow: "Follow new reviews (Atom feed)",
  followJson: "JSON Feed",
  notFound: "There is no such feed.",
};

/** What search engines read of the site. */
export const seoMessages = {
  noSitemap: "There is no such sitemap file.",
};
