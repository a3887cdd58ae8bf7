/**
 * A list's own MQTT topic (docs/mqtt.md "A list's own topic"), against a real mosquitto: a
 * list marked for MQTT in its recipients has its alerts on `<prefix>/watchlists/<list id>/alerts`
 * as well as on `<prefix>/alerts`; an unmarked list's alerts are on `<prefix>/alerts` only; and
 * unmarking it stops its topic from the next alert.
 */
import t from 'tap';
import mqtt from 'mqtt';
import { loadMqttOutConfig } from '../platform/config/mqtt-out.ts';
import { addEntry } from '../watchlists/entries.ts';
import { setRecipients } from '../watchlists/recipients.ts';
import { createWatchlist } from '../watchlists/watchlists.ts';
import { startMqttOut } from './run.ts';
import { mqttTestBroker, mqttTestHub, until } from './mqtt.test-helper.ts';

const { db, hub, log, ctx, actor, list, cache, raise } = await mqttTestHub(t, 'Published list', ['PUB0001', 'PUB0002', 'PUB0003']);
const quiet = await createWatchlist(ctx, actor, { name: 'Unpublished list' });
await addEntry(ctx, actor, quiet.id, { plate: 'QUI0001' });
const admin = { ...actor, role: 'admin' as const };
await db.sql(`UPDATE users SET role = 'admin' WHERE id = $1`, [actor.userId]);
await setRecipients(ctx, admin, list.id, { chats: [], webhooks: [], mqtt: true });

const broker = await mqttTestBroker(t, { users: { hub: 'hub-Pa55-mqtt', ha: 'ha-Pa55-mqtt' } });
const config = loadMqttOutConfig({ HUB_MQTT_URL: broker.url, HUB_MQTT_USERNAME: 'hub', HUB_MQTT_PASSWORD: 'hub-Pa55-mqtt' });
if (!config) throw new Error('no config');
const out = await startMqttOut({ db, listen: db.listen, clock: ctx.clock, log, hubConfig: hub.deps.config }, config);
t.teardown(() => out.stop());

const got: Array<{ topic: string; plate: string; watchlist: string }> = [];
const ha = await mqtt.connectAsync(broker.url, { username: 'ha', password: 'ha-Pa55-mqtt' });
t.teardown(() => ha.endAsync());
ha.on('message', (topic, payload) => {
  if (!topic.endsWith('/alerts')) return;
  const alert = JSON.parse(payload.toString('utf8')) as { plate_number: string; watchlist: { id: string } };
  got.push({ topic, plate: alert.plate_number, watchlist: alert.watchlist.id });
});
// Subscribed to the list topics by wildcard, as a consumer of every list would be.
await ha.subscribeAsync(['alpr/alerts', 'alpr/watchlists/+/alerts'], { qos: 1 });
await until(() => out.stats().connected, 'connected');

const on = (topic: string) => got.filter((m) => m.topic === topic).map((m) => m.plate);
const listTopic = (id: string) => `alpr/watchlists/${id}/alerts`;

t.test('a published list’s alert is on its own topic and the common one; another list’s only on the common one', async (t) => {
  cache.invalidate();
  await raise(['PUB0001', 'QUI0001']);
  await until(() => on('alpr/alerts').length === 2 && on(listTopic(list.id)).length === 1, 'both alerts and the list copy');
  t.same(on(listTopic(list.id)), ['PUB0001'], 'the published list’s own topic holds its alert');
  t.same(on(listTopic(quiet.id)), [], 'the other list has no topic');
  t.same(on('alpr/alerts').sort(), ['PUB0001', 'QUI0001']);
  t.ok(
    got.filter((m) => m.topic === listTopic(list.id)).every((m) => m.watchlist === list.id),
    'the same payload, naming its list',
  );
});

t.test('unmarked, the list’s topic stays silent from the next alert', async (t) => {
  await setRecipients(ctx, admin, list.id, { chats: [], webhooks: [], mqtt: false });
  await raise(['PUB0002']);
  await until(() => on('alpr/alerts').includes('PUB0002'), 'the common topic');
  // Marked again, the next alert is on it: messages arrive in order, so PUB0002's copy would have come first.
  await setRecipients(ctx, admin, list.id, { chats: [], webhooks: [], mqtt: true });
  await raise(['PUB0003']);
  await until(() => on(listTopic(list.id)).includes('PUB0003'), 'the list topic again');
  t.same(on(listTopic(list.id)), ['PUB0001', 'PUB0003'], 'PUB0002 was not on the list topic');
});
