terraform {
  # optional() attribute defaults need 1.3; 1.5 is the oldest release we describe in docs/deploy.md.
  required_version = ">= 1.5.0, < 2.0.0"

  required_providers {
    google = {
      source = "hashicorp/google"
      # 7.x and 8.x: nothing used here is affected by the 8.0 breaking changes
      # (workflows.source_contents is always set, no event_trigger blocks are used).
      version = ">= 7.0.0, < 9.0.0"
    }
    google-beta = {
      # Only for google_project_service_identity (beta-only), which materialises the
      # Pub/Sub service agent before IAM is granted to it.
      source  = "hashicorp/google-beta"
      version = ">= 7.0.0, < 9.0.0"
    }
    archive = {
      # 2.5.0 added glob patterns to archive_file.excludes (earlier versions would upload .env
      # and *.tfvars with the source).
      source  = "hashicorp/archive"
      version = ">= 2.5.0, < 3.0.0"
    }
    time = {
      # time_sleep: lets the build account's grants propagate before the first build (iam.tf).
      source  = "hashicorp/time"
      version = ">= 0.9.0, < 1.0.0"
    }
  }
}
