import t from 'tap';
import { forPeople } from './words.ts';

t.test("the hub's refusals in a person's words: the field to fix, no route, no parameter name", async (t) => {
  const cases: Array<[string, string]> = [
    // "Next page" on an empty search form once showed the first of these as it came.
    [
      'purpose: a purpose code (GET /api/v1/purposes lists them), e.g. stolen_vehicle',
      'Choose a purpose from the list: every lookup is recorded with why it was made.',
    ],
    ['purpose: a purpose is required (GET /api/v1/purposes lists them)', 'Choose a purpose from the list: every lookup is recorded with why it was made.'],
    ['purpose: no purpose nope (GET /api/v1/purposes lists them)', 'Choose a purpose from the list: every lookup is recorded with why it was made.'],
    ['collector_id: must be a uuid', 'Choose a site from the list.'],
    ['start_date: must be between 1970-01-01 and 9999-12-31', 'Check the start of the time range: must be between 1970-01-01 and 9999-12-31.'],
    ['invalid request body: plate: Must be 1-16 letters or digits', 'Check the plate: must be 1-16 letters or digits.'],
    ['invalid request body: entries.3.notes: too long', 'Check the notes: too long.'],
    ['window_size: must be a whole number', 'Check the window size: must be a whole number.'],
    ['colour: not a parameter of this request', 'This page sent something the hub does not know: reload the page and try again.'],
    ['subscribe to the watchlist first (POST /api/v1/watchlist/{id}/subscription)', 'Subscribe to the watchlist first'],
    // Already in words: left as they are.
    ['Invalid email or password', 'Invalid email or password'],
    ['Too many requests: wait a minute and try again.', 'Too many requests: wait a minute and try again.'],
  ];
  for (const [hub, page] of cases) t.equal(forPeople(hub), page, hub);
  for (const [hub] of cases) t.notMatch(forPeople(hub), /\/api\/|\b[a-z]+_[a-z_]+:/, `${hub}: nothing for programs left`);
});
