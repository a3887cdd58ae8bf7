import { html, raw } from 'hono/html';
import { STYLESHEET } from '@alpr/shared/ui/stylesheet';
import type { HtmlEscapedString } from 'hono/utils/html';

/**
 * Shared page frame for the setup and diagnostics pages: server-rendered, no JavaScript,
 * no external assets (the appliance may have no Internet), the dashboard's stylesheet
 * inlined (shared/src/ui/stylesheet.ts). Everything interpolated goes through hono/html
 * escaping; the stylesheet is our own constant.
 */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export function layout(title: string, body: Html, options: { refreshSeconds?: number } = {}): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${
    options.refreshSeconds ? html`<meta http-equiv="refresh" content="${options.refreshSeconds}">` : ''
  }<title>${title}</title><style>${raw(STYLESHEET)}</style></head>
<body><main>${body}</main></body></html>`;
}

export const errorBox = (message: string | undefined): Html | string => (message ? html`<p class="error" role="alert">${message}</p>` : '');

export const noticeBox = (message: string | undefined): Html | string => (message ? html`<p class="notice">${message}</p>` : '');

/**
 * A form field. `pattern`, `min`, `max` make the browser check the value as the installer
 * types (no JavaScript: `:invalid` marks it at once); the server checks everything again.
 */
export interface FieldAttrs {
  type?: string;
  placeholder?: string;
  required?: boolean;
  pattern?: string;
  min?: number;
  max?: number;
  /** A line under the field: what it is for, who needs it. */
  hint?: string;
  autocomplete?: string;
}

export const field = (label: string, name: string, value: string | undefined, attrs: FieldAttrs = {}): Html =>
  html`<label><span>${label}</span><input name="${name}" type="${attrs.type ?? 'text'}" value="${value ?? ''}"${
    attrs.placeholder ? html` placeholder="${attrs.placeholder}"` : ''
  }${attrs.required ? html` required` : ''}${attrs.pattern ? html` pattern="${attrs.pattern}"` : ''}${attrs.min !== undefined ? html` min="${attrs.min}"` : ''}${
    attrs.max !== undefined ? html` max="${attrs.max}"` : ''
  }${attrs.autocomplete ? html` autocomplete="${attrs.autocomplete}"` : ''}>${attrs.hint ? html`<small>${attrs.hint}</small>` : ''}</label>`;

/** Options as plain values, or `[value, label]` pairs when the value is a code and the label the installer's word. */
export function select(label: string, name: string, options: readonly (string | readonly [string, string])[], value: string | undefined): Html {
  const items = options.map((o) => {
    const [v, text] = typeof o === 'string' ? [o, o] : o;
    return html`<option value="${v}"${v === value ? html` selected` : ''}>${text}</option>`;
  });
  return html`<label><span>${label}</span><select name="${name}">${items}</select></label>`;
}
