import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';

/** The live feed and alerts (client/live.ts over `GET /ws`). */
export function LivePage(props: { user: SessionUser }) {
  return (
    <Page title="Live" script="live" user={props.user} path="/live">
      <p id="connection" class="status" role="status" aria-live="polite">
        Connecting…
      </p>
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
