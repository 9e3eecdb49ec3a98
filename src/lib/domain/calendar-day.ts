/**
 * Dates a catalogue gives as a calendar day (`2021-01-01`: data.json's and DCAT's `issued` and
 * `modified`) rather than as an instant. Records keep them in a timestamp column, at noon UTC: the
 * same day in every time zone from UTC−11 to UTC+11, so the archive's pages (in Santo Domingo's
 * time, UTC−4), its citations and a reader anywhere in the Americas or Europe see the day the
 * catalogue wrote, not the day before; and the DCAT catalogue and schema.org give it back as a day.
 * Kept at midnight UTC, «1 de enero de 2021» showed as 31/12/2020 and was cited as (2020).
 * An instant (CKAN's `metadata_created`, written with its time) is kept as given.
 */

/** The hour (UTC) a calendar day is kept at. */
const NOON = 12;

/** `YYYY-MM-DD` as the archive keeps a calendar day. */
export function calendarDayDate(day: string): Date {
  return new Date(`${day}T${String(NOON).padStart(2, '0')}:00:00Z`);
}

/** Whether `date` is a calendar day as `calendarDayDate` keeps one (noon UTC, to the millisecond). */
export function isCalendarDay(date: Date): boolean {
  return date.getUTCHours() === NOON && date.getUTCMinutes() === 0 && date.getUTCSeconds() === 0 && date.getUTCMilliseconds() === 0;
}

/** The `YYYY-MM-DD` of a calendar day kept by `calendarDayDate`. */
export function calendarDayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** A date a catalogue declared, as it declared it: the day (`YYYY-MM-DD`) when it gave a day, else the instant. */
export function declaredDate(date: Date): string | Date {
  return isCalendarDay(date) ? calendarDayOf(date) : date;
}
