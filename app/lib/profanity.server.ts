import { englishDataset, englishRecommendedTransformers, RegExpMatcher } from "obscenity";

/**
 * The guideline "no profanity", checked by machine on the server with the `obscenity` package's English data set
 * and its recommended transformers (which see through l33t spellings, repeated letters and spacing tricks while
 * leaving words such as "Scunthorpe" alone). It stays off the browser: its patterns would weigh on every review
 * page's JavaScript for a check the server makes anyway.
 */
let matcher: RegExpMatcher | undefined;

export function hasProfanity(text: string): boolean {
  matcher ??= new RegExpMatcher({ ...englishDataset.build(), ...englishRecommendedTransformers });
  return matcher.hasMatch(text);
}
