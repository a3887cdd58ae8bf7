/**
 * A table a client script fills: caption (visible, or for screen readers only), column
 * headers, an empty body. The pages' many tables differ only in these.
 */
export function DataTable(props: {
  id: string;
  caption: string;
  hiddenCaption?: boolean;
  columns: readonly string[];
  hidden?: boolean;
  data?: Record<string, string>;
}) {
  return (
    <table id={props.id} hidden={props.hidden} {...Object.fromEntries(Object.entries(props.data ?? {}).map(([k, v]) => [`data-${k}`, v]))}>
      <caption class={props.hiddenCaption ? 'visually-hidden' : undefined}>{props.caption}</caption>
      <thead>
        <tr>
          {props.columns.map((c) => (
            <th scope="col">{c}</th>
          ))}
        </tr>
      </thead>
      <tbody></tbody>
    </table>
  );
}
