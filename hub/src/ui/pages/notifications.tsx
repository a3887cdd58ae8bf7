import type { SessionUser } from '../../auth/middleware.ts';
import { Page } from '../layout.tsx';
import { DataTable } from './data-table.tsx';

/** The messaging bot for the signed-in user (client/notifications.ts over `/api/v1/telegram/*`). */
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
        <button type="button" id="create-code" disabled={!props.botConfigured}>Create a link code</button>
        <p id="code-line" hidden>
          Send <code id="link-command"></code> to the bot before <span id="code-expiry"></span>.
        </p>
      </section>
      <DataTable id="links" caption="Linked chats" columns={['Chat', 'Linked', 'State', 'Muted until', 'Last alert sent']} />
      <button type="button" id="unlink" class="secondary">Unlink every chat</button>
    </Page>
  );
}
