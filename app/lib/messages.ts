import { maxTagsPerReview, reviewTextLength } from "./limits.ts";

/**
 * The spec's user-facing texts (sections 2 and 8), each written once so a grep finds it and tests can import it.
 */
export const messages = {
  siteName: "Candor",
  tagline: "Transparency in Leadership",
  noCompanyFound: "No Company Found",
  noManagerFound: "No Manager Found",
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
  /** The same link for a signed-in reader, by the product's own name for it. */
  addReview: "Add review",
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
  sorts: { newest: "Newest", highest: "Highest rated", lowest: "Lowest rated" },
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

/** Toasts after a redirect, shown for 3 seconds. */
export const toastTexts = {
  "signed-in": "You are signed in",
  "signed-out": "You are signed out",
  "company-added": "Company added successfully!",
  "company-reviewed": "Thank you for your submission!",
  "manager-reviewed": "Manager Review added successfully!",
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

/** Verifying a work address and the "Verified" badge (docs/decisions/0030-blind-signed-verification-tokens.md). */
export const verificationMessages = {
  addressInvalid: "Enter your work e-mail address, such as jane@example.com.",
  freeMail: "This is a free e-mail service: enter the address your employer gave you.",
  codeSent: (domain: string) =>
    `We have sent a 6-digit code to your address at ${domain}. It works for 15 minutes. Type it below.`,
  codeInvalid: "Enter the 6-digit code from the mail.",
  codeWrong: "That code is not right. Check the latest mail from us and try again.",
  codeExpired: "This code has expired or was used up. Ask for a new one.",
  alreadyVerified: "This address has already been verified this quarter: each address can be verified once a quarter.",
  needsJavaScript:
    "Verification needs JavaScript: your browser makes the tokens itself, so that not even we can tie them to you.",
  requestInvalid: "The verification request was not understood. Reload the page and try again.",
  keyMismatch:
    "The signing key we were given is not the one listed publicly for this domain, so we stopped: reload and try again, or tell us.",
  verified: (domain: string, count: number) =>
    `Done: this browser now holds ${count} verification tokens for ${domain}, valid until the end of the quarter. Each one can badge one review of a company whose website is on ${domain}.`,
  tokenInvalid: "This verification token is not valid.",
  tokenDomain: (tokenDomain: string, companyDomain: string) =>
    `This verification token is for ${tokenDomain}, but this company's website is on ${companyDomain}.`,
  tokenQuarter: "This verification token is from another quarter: verify your work address again.",
  tokenSpent: "This verification token has already been used.",
  badge: (domain: string) => `Verified: works at ${domain}`,
  badgeWithheld: (domain: string, minimum: number) =>
    `Your review will appear without the “Verified” badge: fewer than ${minimum} people from ${domain} have verified this quarter, and a badge from so few could point to you. Your token was not used.`,
  badgeComing: (domain: string) =>
    `Your review will carry the badge “Verified: works at ${domain}”. This browser sends one of its verification tokens with it; nothing ties the token to you.`,
} as const;
