/**
 * The selected list's recipients beyond its subscribers (docs/watchlists.md "Recipients"), for
 * operators and admins (viewers do not see it: the API answers them 403): bot chats, webhook
 * targets (admins choose them) and the list's own MQTT topic. Filled and saved by
 * client/watchlist-recipients.ts.
 */
/** MQTT out as this hub is configured: its topic prefix, and whether it publishes at all (HUB_MQTT_URL). */
export interface RecipientsMqtt {
  topicPrefix: string;
  on: boolean;
}

export function RecipientsSection(props: { isAdmin: boolean; mqtt: RecipientsMqtt }) {
  return (
    <section id="recipients-section" class="card" aria-labelledby="recipients-title" data-admin={props.isAdmin ? 'true' : 'false'}>
      <h3 id="recipients-title">Recipients</h3>
      <p>Beyond the subscribers, these also hear this list's alerts. A chat hears only alerts from the sites of the account that linked it.</p>
      <form id="recipients-form">
        <fieldset>
          <legend>Bot chats</legend>
          <ul id="recipients-chats"></ul>
          {props.isAdmin ? (
            <>
              <label for="recipients-add-chat">Add a linked chat by its id (a group's id is negative)</label>
              <input id="recipients-add-chat" inputmode="numeric" maxlength={17} autocomplete="off" />
            </>
          ) : null}
        </fieldset>
        <fieldset>
          <legend>Webhook targets{props.isAdmin ? '' : ' (chosen by admins)'}</legend>
          <ul id="recipients-webhooks"></ul>
        </fieldset>
        <label class="check">
          <input type="checkbox" id="recipients-mqtt" /> Also publish its alerts on its own MQTT topic,{' '}
          <code id="recipients-topic" data-prefix={props.mqtt.topicPrefix}></code>
        </label>
        {props.mqtt.on ? null : (
          <p id="recipients-mqtt-off" class="muted">
            MQTT out is off on this hub (HUB_MQTT_URL is not set): the topic is used once it is on.
          </p>
        )}
        <button type="submit">Save recipients</button>
      </form>
    </section>
  );
}
