import { type KeyboardEvent, useState } from "react";
import { FieldProblemText, problemAttributes } from "#app/components/form.tsx";
import type { FieldProblem } from "#app/lib/form-refusal.ts";
import { maxTagsPerReview } from "#app/lib/limits.ts";
import { useHydrated } from "#app/lib/use-hydrated.ts";

const forward = new Set(["ArrowRight", "ArrowDown"]);
const backward = new Set(["ArrowLeft", "ArrowUp"]);

/**
 * Up to 5 tags from a fixed list; choosing a tag again deselects it. With JavaScript the group is one Tab stop, and
 * the arrow keys (Home, End) move between its tags, Space choosing, as in a radio group; a search box above narrows
 * the list, and the list starts folded to a few lines (the chosen tags always in view). Without it, every tag is
 * shown and is a Tab stop of its own.
 */
export function TagPicker({
  tags,
  defaultValue = [],
  error,
}: {
  tags: readonly string[];
  defaultValue?: string[] | undefined;
  error?: FieldProblem | undefined;
}) {
  const [chosen, setChosen] = useState<string[]>(defaultValue);
  const [current, setCurrent] = useState(0);
  const [filter, setFilter] = useState("");
  const [open, setOpen] = useState(false);
  const hydrated = useHydrated();
  const full = chosen.length >= maxTagsPerReview;
  const wanted = filter.trim().toLowerCase();
  const shown = (index: number) => {
    const tag = tags[index] ?? "";
    return !hydrated || !wanted || tag.toLowerCase().includes(wanted) || chosen.includes(tag);
  };
  const enabled = (index: number) => shown(index) && (!full || chosen.includes(tags[index] ?? ""));
  const matches = tags.filter((_, index) => shown(index)).length;
  // The Tab stop: the tag last moved to, or the first that can be chosen when that one is full.
  const stop = enabled(current) ? current : tags.findIndex((_, index) => enabled(index));

  function move(event: KeyboardEvent<HTMLDivElement>) {
    const step = forward.has(event.key) ? 1 : backward.has(event.key) ? -1 : 0;
    const edge = event.key === "Home" ? 0 : event.key === "End" ? tags.length - 1 : -1;
    if (step === 0 && edge === -1) return;
    event.preventDefault();
    // From the edge (Home, End) or the next tag over, skip the tags that cannot be chosen while 5 are.
    const direction = step || (edge === 0 ? 1 : -1);
    let next = edge === -1 ? stop + step : edge;
    for (let tries = 0; tries < tags.length; tries++) {
      next = (next + tags.length) % tags.length;
      if (enabled(next)) break;
      next += direction;
    }
    setCurrent(next);
    setOpen(true);
    event.currentTarget.querySelectorAll<HTMLInputElement>('input[name="tags"]')[next]?.focus();
  }

  const folded = hydrated && !open && !wanted;

  return (
    <fieldset
      id="tags-field"
      className={error ? "tag-picker invalid" : "tag-picker"}
      aria-describedby={problemAttributes(error, "tags-error", "tags-status")["aria-describedby"]}
    >
      <legend>Tags</legend>
      <p id="tags-status" className="hint" aria-live="polite">
        {chosen.length} of {maxTagsPerReview} chosen. Choose at least one.
        {hydrated ? " Arrow keys move between tags." : null}
      </p>
      <FieldProblemText id="tags-error" problem={error} />
      {hydrated ? (
        <div className="tag-search">
          <label htmlFor="tag-search" className="visually-hidden">
            Find a tag
          </label>
          <input
            id="tag-search"
            type="search"
            placeholder="Find a tag"
            autoComplete="off"
            value={filter}
            onChange={(event) => setFilter(event.currentTarget.value)}
            aria-describedby="tags-found"
            // The search box is not part of the review: its text is never sent, nor kept in the draft.
            form="no-form"
          />
          <span id="tags-found" className="hint" aria-live="polite">
            {wanted ? `${matches} of ${tags.length} tags` : null}
          </span>
        </div>
      ) : null}
      {/* Not unfolded on focus: a click focuses its tag first, and unfolding then moved the tag from under the
          pointer before the click ended, so the click chose another tag or none. The arrow keys unfold (move). */}
      <div className={folded ? "tag-options folded" : "tag-options"} onKeyDown={hydrated ? move : undefined}>
        {tags.map((tag, index) => {
          const checked = chosen.includes(tag);
          return (
            <label key={tag} className="tag-option" hidden={!shown(index)}>
              <input
                type="checkbox"
                name="tags"
                value={tag}
                checked={checked}
                disabled={full && !checked}
                tabIndex={hydrated && index !== stop ? -1 : undefined}
                onFocus={() => setCurrent(index)}
                onChange={() =>
                  setChosen((current) => (checked ? current.filter((t) => t !== tag) : [...current, tag]))
                }
              />
              <span>{tag}</span>
            </label>
          );
        })}
      </div>
      {folded ? (
        // For a pointer; by keyboard, moving between the tags unfolds them.
        <button type="button" className="link-button" tabIndex={-1} onClick={() => setOpen(true)}>
          Show all {tags.length} tags
        </button>
      ) : null}
    </fieldset>
  );
}
