/// <reference lib="dom" />
/**
 * Small DOM helpers for the dashboard's scripts. Text always goes in as text (never as
 * HTML), so a plate, a note or a site name cannot inject markup.
 */
type Attrs = Record<string, string | boolean | undefined>;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Array<Node | string | null | undefined>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`#${id} is missing from the page`);
  return node as T;
}

export function show(node: HTMLElement, visible: boolean): void {
  node.hidden = !visible;
}

/** A message for everyone: screen readers hear it (role=alert on the element). */
export function say(text: string, kind: 'error' | 'info' = 'error'): void {
  const box = document.getElementById('message');
  if (!box) return;
  box.textContent = text;
  box.dataset['kind'] = kind;
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/**
 * Names each body cell after its column header (`data-label`): at 390 px the stylesheet stacks
 * a row's cells and hides the header row, and a cell with a label shows it before its value
 * (shared/src/ui/stylesheet.ts). Call after filling the body; cells without a header text
 * (action buttons) stay unlabelled.
 */
export function labelCells(table: HTMLTableElement): void {
  const headers = [...table.querySelectorAll('thead th')].map((th) => th.textContent?.trim() ?? '');
  for (const row of table.querySelectorAll('tbody tr')) {
    [...row.children].forEach((cell, i) => {
      const label = headers[i];
      if (cell.tagName === 'TD' && label && !cell.hasAttribute('data-label')) cell.setAttribute('data-label', label);
    });
  }
}

export function percent(confidence: number): string {
  return `${Math.round(confidence * 100)} %`;
}
