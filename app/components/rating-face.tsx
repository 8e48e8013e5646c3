import { ratingFaceNames, ratingFaces } from "#app/lib/ratings.ts";

/** The emoji face for a whole-number rating from 0 (no rating) to 5. */
export function RatingFace({ score }: { score: number }) {
  const index = Math.max(0, Math.min(5, Math.floor(score)));
  return (
    <span className="face" role="img" aria-label={`Rating: ${ratingFaceNames[index]} (${index} of 5)`}>
      {ratingFaces[index]}
    </span>
  );
}
