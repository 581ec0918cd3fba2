import { tagged } from "../errors.js";

/**
 * time.format: ISO 8601 with microsecond precision, "Z" for a zero offset and
 * "+hh:mm" otherwise, e.g. 1720788633 in Europe/Paris -> 2024-07-12T14:50:33.000000+02:00.
 */
export function formatTimestamp(seconds: number, timezone: string): string {
  const totalMicros = Math.round(seconds * 1e6);
  const wholeSeconds = Math.floor(totalMicros / 1e6);
  const micros = totalMicros - wholeSeconds * 1e6;
  const instantMs = wholeSeconds * 1000;
  const zone = timezone === "" ? "UTC" : timezone;
  const local = localFields(instantMs, zone);
  const offsetMinutes = Math.round((Date.UTC(...local) - instantMs) / 60000);
  const [year, month, day, hour, minute, second] = local;
  const date = `${pad(year, 4)}-${pad(month + 1, 2)}-${pad(day, 2)}`;
  const time = `${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}.${pad(micros, 6)}`;
  return `${date}T${time}${formatOffset(offsetMinutes)}`;
}

type Fields = [number, number, number, number, number, number];

function localFields(instantMs: number, zone: string): Fields {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    }).formatToParts(new Date(instantMs));
  } catch {
    throw tagged("ValueError", `unknown timezone ${JSON.stringify(zone)}`);
  }
  const get = (type: Intl.DateTimeFormatPartTypes): number =>
    Number(parts.find((p) => p.type === type)?.value);
  return [get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second")];
}

function formatOffset(minutes: number): string {
  if (minutes === 0) return "Z";
  const sign = minutes > 0 ? "+" : "-";
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60), 2)}:${pad(abs % 60, 2)}`;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}
