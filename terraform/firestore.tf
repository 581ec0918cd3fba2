# Firestore (native mode) database and the indexes the code's queries need.
# docs/deploy.md lists the equivalent `gcloud firestore indexes composite create` commands.

resource "google_firestore_database" "ferret" {
  project     = var.project_id
  name        = var.firestore_database
  location_id = var.firestore_location
  type        = "FIRESTORE_NATIVE"

  delete_protection_state = var.deletion_protection ? "DELETE_PROTECTION_ENABLED" : "DELETE_PROTECTION_DISABLED"
  deletion_policy         = "DELETE"

  depends_on = [google_project_service.api]
}

locals {
  # INVESTIGATION_INDEXES in functions/src/adapters/firestore/indexes.ts (checked by
  # test/unit/terraform): "earlier investigations of this resource / principal / IOC, newest
  # first" and "investigations in a status by when they last changed, oldest first" (the sweep).
  firestore_composite_indexes = {
    investigations_by_resource = {
      collection = "investigations"
      fields = [
        { field_path = "finding.resource.name", order = "ASCENDING", array_config = null },
        { field_path = "createdAt", order = "DESCENDING", array_config = null },
      ]
    }
    investigations_by_principal = {
      collection = "investigations"
      fields = [
        { field_path = "finding.access.principalEmail", order = "ASCENDING", array_config = null },
        { field_path = "createdAt", order = "DESCENDING", array_config = null },
      ]
    }
    investigations_by_status = {
      collection = "investigations"
      fields = [
        { field_path = "status", order = "ASCENDING", array_config = null },
        { field_path = "updatedAt", order = "ASCENDING", array_config = null },
      ]
    }
    investigations_by_ioc = {
      collection = "investigations"
      fields = [
        { field_path = "iocValues", order = null, array_config = "CONTAINS" },
        { field_path = "createdAt", order = "DESCENDING", array_config = null },
      ]
    }
  }

  # Flat vector indexes for findNearest (the distance measure, COSINE, is chosen per query).
  # prefix_fields are equality filters applied before the nearest-neighbour search: the adapters'
  # FINDING_EMBEDDING_INDEX (embedding space) and MEMORY_VECTOR_INDEX (memory scope), checked by
  # test/unit/terraform. The emulator runs these queries without any index; production does not.
  firestore_vector_indexes = {
    finding_embeddings = {
      collection    = "findingEmbeddings"
      prefix_fields = ["space"]
      vector_field  = "embedding"
      dimension     = 768
    }
    memories_by_scope = {
      collection    = "memories"
      prefix_fields = ["scope", "embeddingSpace"]
      vector_field  = "embedding"
      dimension     = 768
    }
  }
}

resource "google_firestore_index" "composite" {
  for_each = local.firestore_composite_indexes

  project     = var.project_id
  database    = google_firestore_database.ferret.name
  collection  = each.value.collection
  query_scope = "COLLECTION"

  dynamic "fields" {
    for_each = each.value.fields
    content {
      field_path   = fields.value.field_path
      order        = fields.value.order
      array_config = fields.value.array_config
    }
  }
}

resource "google_firestore_index" "vector" {
  for_each = local.firestore_vector_indexes

  project     = var.project_id
  database    = google_firestore_database.ferret.name
  collection  = each.value.collection
  query_scope = "COLLECTION"

  dynamic "fields" {
    for_each = each.value.prefix_fields
    content {
      field_path = fields.value
      order      = "ASCENDING"
    }
  }

  # Firestore places __name__ between the filter fields and the vector field; declaring it
  # keeps plans free of a perpetual diff.
  fields {
    field_path = "__name__"
    order      = "ASCENDING"
  }

  fields {
    field_path = each.value.vector_field
    vector_config {
      dimension = each.value.dimension
      flat {}
    }
  }
}

# Once-only markers (TTL_COLLECTIONS and EXPIRE_AT_FIELD in
# functions/src/adapters/firestore/paths.ts) carry expireAt, 30 days after they were written,
# past any redelivery or dead-letter replay; Firestore's TTL policy deletes them after it.
resource "google_firestore_field" "marker_ttl" {
  for_each = toset(["claims", "memorySessions"])

  project    = var.project_id
  database   = google_firestore_database.ferret.name
  collection = each.key
  field      = "expireAt"

  ttl_config {}
  # Nothing queries the field: no single-field indexes for it.
  index_config {}
}
