import type { Firestore } from "@google-cloud/firestore";
import { type Lesson, LessonSchema } from "../../domain/lesson.js";
import type { LessonStore } from "../../ports/lesson-store.js";
import { ALREADY_EXISTS, grpcCode, toStorageError } from "./errors.js";

export const LESSONS_COLLECTION = "lessons";

// Enough to pick the newest few without an ordered query (which would need a composite index).
const SCAN_LIMIT = 200;

/** lessons/{actionId}: written once with create(), read by category equality. */
export class FirestoreLessonStore implements LessonStore {
  constructor(private readonly db: Firestore) {}

  async add(lesson: Lesson): Promise<boolean> {
    const checked = LessonSchema.parse(lesson);
    try {
      await this.db.collection(LESSONS_COLLECTION).doc(checked.id).create(checked);
      return true;
    } catch (error) {
      if (grpcCode(error) === ALREADY_EXISTS) return false;
      throw toStorageError(error, `storing lesson ${checked.id}`);
    }
  }

  async forCategory(category: string, limit: number): Promise<Lesson[]> {
    try {
      const snap = await this.db
        .collection(LESSONS_COLLECTION)
        .where("category", "==", category)
        .limit(SCAN_LIMIT)
        .get();
      return snap.docs
        .flatMap((d) => {
          const parsed = LessonSchema.safeParse(d.data());
          return parsed.success ? [parsed.data] : [];
        })
        .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt))
        .slice(0, limit);
    } catch (error) {
      throw toStorageError(error, `reading lessons for ${category}`);
    }
  }
}
