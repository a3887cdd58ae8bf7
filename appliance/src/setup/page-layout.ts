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
label{display:block;margin:.4rem 0}label span{display:inline-block;width:11rem}
input,select{padding:.25rem;min-width:16rem}button{padding:.3rem .9rem;margin-top:.4rem}
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

export const field = (label: string, name: string, value: string | undefined, attrs: { type?: string; placeholder?: string; required?: boolean } = {}): Html =>
  html`<label><span>${label}</span><input name="${name}" type="${attrs.type ?? 'text'}" value="${value ?? ''}"${
    attrs.placeholder ? html` placeholder="${attrs.placeholder}"` : ''
  }${attrs.required ? html` required` : ''}></label>`;

export function select(label: string, name: string, options: readonly string[], value: string | undefined): Html {
  const items = options.map((o) => html`<option value="${o}"${o === value ? html` selected` : ''}>${o}</option>`);
  return html`<label><span>${label}</span><select name="${name}">${items}</select></label>`;
}
