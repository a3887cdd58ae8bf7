import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';
import { DataTable } from './data-table.tsx';

const CHANNELS = [
  { id: 'telegram', title: 'Telegram', note: 'Quiet hours: alerts are kept and shown on the dashboard, but not sent to your chats.' },
  { id: 'web', title: 'Web (the live page)', note: 'Off or in quiet hours: alerts still appear on the live page, without sound or desktop notification.' },
] as const;

/**
 * Notifications for the signed-in user (client/notifications.ts): the bot link, mute, and
 * preferences per channel (default and per subscribed watchlist) with quiet hours.
 */
export function NotificationsPage(props: { user: SessionUser; botConfigured: boolean }) {
  return (
    <Page title="Notifications" script="notifications" user={props.user} path="/notifications">
      <p id="message" class="message" role="alert" aria-live="assertive"></p>
      <section class="card" aria-labelledby="bot-title">
        <h2 id="bot-title">Alerts on your phone (Telegram bot)</h2>
        {props.botConfigured ? (
          <p>Create a code, then send the command it shows to the hub's bot. The code works once, for 10 minutes.</p>
        ) : (
          <p>This hub has no messaging bot configured (HUB_TELEGRAM_BOT_TOKEN); ask an admin.</p>
        )}
        <button type="button" id="create-code" disabled={!props.botConfigured}>
          Create a link code
        </button>
        <p id="code-line" hidden>
          Send <code id="link-command"></code> to the bot before <span id="code-expiry"></span>.
        </p>
      </section>
      <DataTable id="links" caption="Linked chats" columns={['Chat', 'Linked', 'State', 'Muted until', 'Last alert sent']} />
      <div class="actions">
        <label for="mute-for">Mute every chat for</label>
        <select id="mute-for">
          <option value="30m">30 minutes</option>
          <option value="2h">2 hours</option>
          <option value="8h">8 hours</option>
          <option value="1d">1 day</option>
        </select>
        <button type="button" id="mute" class="secondary">
          Mute
        </button>
        <button type="button" id="unmute" class="secondary">
          Unmute
        </button>
        <button type="button" id="unlink" class="secondary">
          Unlink every chat
        </button>
      </div>
      {CHANNELS.map((ch) => (
        <form class="card preference" data-channel={ch.id} aria-labelledby={`pref-${ch.id}-title`}>
          <h2 id={`pref-${ch.id}-title`}>{ch.title}: default for your watchlists</h2>
          <p>{ch.note}</p>
          <label>
            <input type="checkbox" name="enabled" checked /> Alerts on
          </label>
          <label>
            Quiet from <input type="time" name="quiet_hours_start" />
          </label>
          <label>
            until <input type="time" name="quiet_hours_end" />
          </label>
          <label>
            Time zone <input type="text" name="timezone" autocomplete="off" spellcheck={false} required maxlength={64} />
          </label>
          <button type="submit">Save {ch.title.split(' ')[0]} default</button>
        </form>
      ))}
      <DataTable
        id="per-watchlist"
        caption="Per watchlist (overrides the default; quiet hours come from the default)"
        columns={['Watchlist', 'Telegram', 'Web']}
      />
    </Page>
  );
}
