import { useState } from "react";
import { maxTagsPerReview } from "#app/lib/limits.ts";

/** Up to 5 tags from a fixed list; choosing a tag again deselects it. */
export function TagPicker({
  tags,
  defaultValue = [],
  error,
}: {
  tags: readonly string[];
  defaultValue?: string[] | undefined;
  error?: string | undefined;
}) {
  const [chosen, setChosen] = useState<string[]>(defaultValue);
  const full = chosen.length >= maxTagsPerReview;
  return (
    <fieldset className={error ? "tag-picker invalid" : "tag-picker"} aria-describedby="tags-status">
      <legend>Tags</legend>
      <p id="tags-status" className="hint" aria-live="polite">
        {chosen.length} of {maxTagsPerReview} chosen. Choose at least one.
      </p>
      {error ? <p className="field-error">{error}</p> : null}
      <div className="tag-options">
        {tags.map((tag) => {
          const checked = chosen.includes(tag);
          return (
            <label key={tag} className="tag-option">
              <input
                type="checkbox"
                name="tags"
                value={tag}
                checked={checked}
                disabled={full && !checked}
                onChange={() =>
                  setChosen((current) => (checked ? current.filter((t) => t !== tag) : [...current, tag]))
                }
              />
              <span>{tag}</span>
            </label>
          );
        })}
      </div>
    </fieldset>
  );
}
