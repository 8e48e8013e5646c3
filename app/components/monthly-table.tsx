import type { ReactNode } from "react";
import { formatMonth } from "#app/lib/format.ts";
import { trendMessages } from "#app/lib/messages.ts";

export type MonthlyColumn<Month> = { label: ReactNode; key: string; cell: (month: Month) => ReactNode };

/** A table of figures month by month: one row per month, headed by the month, then one cell per column. */
export function MonthlyTable<Month extends { month: string }>({
  months,
  columns,
  caption,
  captionHidden = false,
  className,
}: {
  months: Month[];
  columns: MonthlyColumn<Month>[];
  caption?: string;
  /** The caption is for screen readers only (the heading above says it). */
  captionHidden?: boolean;
  className?: string;
}) {
  return (
    <table className={className}>
      {caption ? <caption className={captionHidden ? "visually-hidden" : undefined}>{caption}</caption> : null}
      <thead>
        <tr>
          <th scope="col">{trendMessages.monthColumn}</th>
          {columns.map((column) => (
            <th key={column.key} scope="col">
              {column.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {months.map((month) => (
          <tr key={month.month}>
            <th scope="row">{formatMonth(month.month)}</th>
            {columns.map((column) => (
              <td key={column.key}>{column.cell(month)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
