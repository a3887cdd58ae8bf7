import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

/**
 * Shared page frame for the setup and diagnostics pages: server-rendered, no JavaScript,
 * no external assets (the appliance may have no Internet). Everything interpolated goes
 * through hono/html escaping.
 */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

const STYLE = `body{font-family:system-ui,sans-serif;margin:1.5rem;max-width:60rem;color:#222}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.6rem;border-bottom:1px solid #ccc}
label{display:block;margin:.4rem 0}label span{display:inline-block;width:11rem}label small{display:block;margin-left:11rem}
input,select{padding:.25rem;min-width:16rem;max-width:100%;box-sizing:border-box}button{padding:.3rem .9rem;margin-top:.4rem;min-height:2.5rem}
input:invalid:not(:placeholder-shown){border:2px solid #a11}fieldset{border:1px solid #ccc;margin:.8rem 0}legend{font-weight:600}
@media (max-width:40rem){body{margin:.8rem}label span{display:block;width:auto}label small{margin-left:0}input,select{width:100%;min-width:0}table{display:block;overflow-x:auto}}
td,th{padding:.2rem .6rem;text-align:left;border-bottom:1px solid #ddd;vertical-align:top}
.error{background:#fde8e8;border:1px solid #e0a0a0;padding:.6rem}.notice{background:#e8f6e8;border:1px solid #9c9;padding:.6rem}
.ok{color:#176b17}.bad{color:#a11}small{color:#666}`;

export function layout(title: string, body: Html, options: { refreshSeconds?: number } = {}): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${
    options.refreshSeconds ? html`<meta http-equiv="refresh" content="${options.refreshSeconds}">` : ''
  }<title>${title}</title><style>${STYLE}</style></head>
<body>${body}</body></html>`;
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
