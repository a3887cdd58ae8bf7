import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';

/**
 * The live feed and alerts (client/live.ts over `GET /ws`), and the verification view
 * (client/verify-panel.ts; docs/alerts.md "Verification"): the read's crop and scene beside
 * the list entry, how it matched, the confidence and the camera's other readings, and the
 * operator's verdict with a note.
 */
export function LivePage(props: { user: SessionUser }) {
  return (
    <Page title="Live" script="live" user={props.user} path="/live">
      <p id="connection" class="status" role="status" aria-live="polite">
        Connecting…
      </p>
      <p id="message" class="message" role="alert" aria-live="assertive"></p>
      <section id="alert-banner" class="banner" hidden aria-live="assertive" aria-labelledby="banner-title">
        <h2 id="banner-title">Alert</h2>
        <p id="banner-text"></p>
        <button type="button" id="banner-ack">
          Acknowledge
        </button>
        <button type="button" id="banner-close" class="secondary">
          Hide
        </button>
      </section>
      <section id="verify" class="card grid" hidden aria-labelledby="verify-title">
        <h2 id="verify-title" class="wide" tabindex={-1}>
          Verify alert
        </h2>
        <div>
          <h3>What the camera read</h3>
          <p class="plate" id="verify-read"></p>
          <div class="scene">
            <img id="verify-crop" alt="" hidden />
            <img id="verify-scene" alt="" hidden />
          </div>
          <dl class="facts">
            <dt>Confidence</dt>
            <dd id="verify-confidence"></dd>
            <dt>Where, when</dt>
            <dd id="verify-where"></dd>
            <dt>Other readings</dt>
            <dd id="verify-candidates"></dd>
          </dl>
        </div>
        <div>
          <h3>The list entry</h3>
          <p class="plate" id="verify-listed"></p>
          <dl class="facts">
            <dt>Watchlist</dt>
            <dd id="verify-list"></dd>
            <dt>How it matched</dt>
            <dd id="verify-match"></dd>
            <dt>Notes</dt>
            <dd id="verify-notes"></dd>
            <dt>Added by</dt>
            <dd id="verify-added"></dd>
            <dt>Verification</dt>
            <dd id="verify-state"></dd>
          </dl>
        </div>
        <form id="verify-form" class="wide">
          <label for="verify-note">Note (what the crop shows; needed for a misread)</label>
          <textarea id="verify-note" maxlength={1000} rows={2}></textarea>
          <div class="buttons">
            <button type="submit" id="verify-confirm" value="confirmed">
              Confirmed: the crop shows the listed plate
            </button>
            <button type="submit" id="verify-misread" value="misread" class="secondary">
              Misread
            </button>
            <button type="button" id="verify-close" class="link">
              Close
            </button>
          </div>
        </form>
      </section>
      <div class="toolbar">
        <label class="check">
          <input type="checkbox" id="sound" /> Sound on alerts
        </label>
        <button type="button" id="notify" class="secondary">
          Desktop notifications
        </button>
      </div>
      <div class="columns">
        <section aria-labelledby="alerts-title">
          <h2 id="alerts-title">Alerts</h2>
          <ul id="alerts" class="feed"></ul>
        </section>
        <section aria-labelledby="feed-title">
          <h2 id="feed-title">Detections</h2>
          <ul id="detections" class="feed"></ul>
        </section>
      </div>
    </Page>
  );
}
