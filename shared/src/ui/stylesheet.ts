/**
 * The one stylesheet of every page people see: the hub's dashboard (served as
 * /ui/app.css, hub/src/ui/assets.ts) and the appliance's setup and diagnostics pages (inlined,
 * appliance/src/setup/page-layout.ts: the device may have no Internet and serves no assets).
 * Readable at 390 px and 1280 px, contrast AA, visible focus. A TypeScript string rather than
 * a .css file so the appliance's single-file bundle carries it.
 */
export const STYLESHEET = `:root { --fg: #1b1f24; --muted: #525a63; --bg: #ffffff; --panel: #f3f5f7; --line: #c9d0d6; --accent: #0b5cad; --danger: #a4161a; --ok: #146c2e; font-family: system-ui, sans-serif; color: var(--fg); background: var(--bg); }
* { box-sizing: border-box; }
/* The hidden attribute always wins: a class that sets display (.card.grid, #pager) would otherwise show an element a script hid. */
[hidden] { display: none !important; }
body { margin: 0; line-height: 1.45; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid #f0a202; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: var(--bg); padding: .5rem; }
.skip:focus { left: .5rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
header.top { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; padding: .6rem 1rem; background: #12263a; color: #fff; }
header.top a { color: #fff; }
header.top .brand { font-weight: 700; }
header.top nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none; margin: 0; padding: 0; }
header.top a[aria-current="page"] { text-decoration: underline 3px; }
header.top .who { margin-left: auto; display: flex; gap: .75rem; align-items: center; }
main { padding: 1rem; max-width: 1200px; margin: 0 auto; }
h1 { font-size: 1.5rem; margin: .25rem 0 1rem; }
h2 { font-size: 1.15rem; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 1rem; margin: 0 0 1rem; max-width: 40rem; }
.card.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: .75rem 1rem; max-width: none; align-items: end; }
.card.grid .wide { grid-column: 1 / -1; }
label { display: block; font-weight: 600; margin: .4rem 0 .2rem; }
label.check { font-weight: 400; display: flex; gap: .4rem; align-items: center; overflow-wrap: anywhere; }
input, select, button { font: inherit; }
input:not([type="checkbox"]), select { width: 100%; padding: .45rem .5rem; border: 1px solid #7a8590; border-radius: 4px; background: #fff; color: var(--fg); }
button { padding: .45rem .9rem; border-radius: 4px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; margin-top: .5rem; }
button.secondary { background: #fff; color: var(--accent); }
button.link { background: none; border: none; color: var(--accent); text-decoration: underline; padding: 0; }
button:disabled { opacity: .55; cursor: not-allowed; }
.message:empty { display: none; }
.message { padding: .6rem .8rem; overflow-wrap: anywhere; border-radius: 4px; border: 1px solid var(--danger); color: var(--danger); background: #fdecec; }
.message[data-kind="info"] { border-color: var(--ok); color: var(--ok); background: #eaf6ee; }
.status { font-weight: 600; }
.status[data-state="live"] { color: var(--ok); }
.status[data-state="down"] { color: var(--danger); }
.banner { border: 2px solid var(--danger); background: #fdecec; padding: .75rem 1rem; border-radius: 6px; margin-bottom: 1rem; }
.banner h2 { margin: 0 0 .25rem; color: var(--danger); }
.toolbar { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; margin-bottom: .5rem; }
.columns { display: grid; grid-template-columns: repeat(auto-fit, minmax(20rem, 1fr)); gap: 1rem; }
.feed { list-style: none; padding: 0; margin: 0; }
.feed li { display: flex; flex-wrap: wrap; gap: .4rem .6rem; align-items: center; border-bottom: 1px solid var(--line); padding: .4rem 0; }
.feed img, td img { width: 120px; height: 40px; object-fit: cover; background: #ddd; }
.plate { font-family: ui-monospace, monospace; font-weight: 700; letter-spacing: .05em; }
.muted, .notes { color: var(--muted); }
.priority-high .plate, .priority-critical .plate { color: var(--danger); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid var(--line); vertical-align: middle; }
@media (max-width: 640px) { table, thead, tbody, tr, th, td { display: block; } thead { position: absolute; left: -999px; } tr { border-bottom: 2px solid var(--line); padding: .4rem 0; } td { border: none; padding: .15rem 0; overflow-wrap: anywhere; } td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; } caption { display: block; } input, select, textarea { max-width: 100%; } }
/* Narrow, the header row is out of sight: a column table names each value with its cell's data-label (hub/src/ui/client/dom.ts labelCells; the appliance's pages write it). */
.scene { display: flex; flex-wrap: wrap; gap: 1rem; }
.scene img { max-width: 100%; height: auto; background: #ddd; }
#full-image { max-width: min(640px, 100%); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; }
.facts dt { font-weight: 600; }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.codes { columns: 2; font-family: ui-monospace, monospace; }
.secret code, #manual-key { font-size: 1.1rem; overflow-wrap: anywhere; }
#pager { display: flex; gap: 1rem; align-items: center; margin-top: .75rem; }
svg.chart { width: 100%; max-width: 720px; height: auto; border: 1px solid var(--line); background: #fff; margin: .5rem 0 1rem; }
svg.chart .bar { fill: var(--accent); }
svg.chart .axis { font-size: 11px; fill: var(--muted); }
svg.chart .route { fill: none; stroke: var(--accent); stroke-width: 2.5; }
svg.chart .stop { fill: #fff; stroke: var(--danger); stroke-width: 2.5; }
svg.chart .stop-number { font-size: 12px; font-weight: 700; fill: var(--fg); }
caption { text-align: left; font-weight: 600; padding: .5rem 0; }
svg.spark { display: block; background: var(--panel); }
svg.spark .bar { fill: var(--accent); }
textarea { width: 100%; font: inherit; font-family: ui-monospace, monospace; padding: .45rem .5rem; border: 1px solid #7a8590; border-radius: 4px; }
td.actions { display: flex; flex-wrap: wrap; gap: .4rem; }
td.actions button { margin-top: 0; }
h3 { font-size: 1.05rem; }
select[multiple] { height: auto; }
details summary { cursor: pointer; font-weight: 600; margin: .3rem 0; }
.hint { color: var(--muted); font-size: .9rem; margin: .15rem 0 0; }
.hint:empty, .field-error:empty { display: none; }
.field-error { color: var(--danger); font-weight: 600; margin: .15rem 0 0; }
input[aria-invalid="true"] { border: 2px solid var(--danger); }
.buttons { display: flex; flex-wrap: wrap; gap: .5rem; }
#camera-form { margin-top: 1rem; }
.card h3, .card h4 { margin-top: 0; }
.outcome { font-weight: 600; }
.outcome[data-outcome="connected"] { color: var(--ok); }
.outcome[data-outcome="clock_warning"] { color: #7a4a00; }
.outcome[data-outcome="authentication_failed"], .outcome[data-outcome="unreachable"] { color: var(--danger); }
ul.camera-answers { margin: .25rem 0 0; padding-left: 1.1rem; }
#cameras td, #commands td { overflow-wrap: anywhere; }
/* The audit log's Details are JSON without spaces and a Target may be a 64-character token: unbroken, one row made the page 2,000 px wide at 1280. The other columns keep their words whole. */
#audit td.detail, #audit td.target { overflow-wrap: anywhere; }
#audit td.target { min-width: 8rem; }
#audit td.detail { font-family: ui-monospace, monospace; font-size: .85rem; }
/* A watchlist's MQTT topic holds its 36-character id unbroken: at 390 px it would widen the page. */
#recipients-section code, #recipients-section label.check { overflow-wrap: anywhere; min-width: 0; }
/* The appliance's setup and diagnostics pages (appliance/src/setup/page-layout.ts): server-rendered forms, no JavaScript. */
label small { display: block; font-weight: 400; color: var(--muted); }
fieldset { border: 1px solid var(--line); border-radius: 4px; margin: .8rem 0; }
legend { font-weight: 700; }
input:invalid:not(:placeholder-shown) { border: 2px solid var(--danger); }
.error { background: #fde8e8; border: 1px solid var(--danger); padding: .6rem; }
.notice { background: #e8f6e8; border: 1px solid var(--ok); padding: .6rem; }
.ok { color: var(--ok); }
.bad { color: var(--danger); }
`;
