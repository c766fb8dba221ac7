"""Moving data: the family's export and import, and rules files shared between families."""
