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
  signIn: "Sign In",
  countryPlaceholder: "Country",
  learnMore: "Learn more",
  dataOwnership: "Submitted data becomes the property of the site owner.",
  ipLogged: "IP addresses are logged for abuse control.",
  demoData: "Demo data",
} as const;

/** Toasts after signing in or out (spec section 2), shown for 3 seconds. */
export const accountToasts = {
  "signed-in": "You are signed in",
  "signed-out": "You are signed out",
} as const;
